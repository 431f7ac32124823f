-- voidfit store schema, migration 2: runs as data a query can select.
-- A scenario holds everything that defines a run but its policy and seed, in columns; a run
-- names its scenario; each run's GPU time by bucket (per GPU model and job class) is rows.
-- Runs made before this migration keep their JSON text and blobs and get a scenario of their
-- own kind ('legacy:' key): they have no buckets, and compare and report say so instead of
-- mixing them with new runs.

-- A scenario: its trace, and key, the canonical text of the columns after it (scenario_key
-- in the code; 'legacy:' and the old parameters for runs made before this migration). Reals
-- that do not apply are NULL: target for timed runs, queue for inflation. dims is '' when
-- each policy sees its own; faults 'NODE:DIM=F@START+DURATION' comma-separated; profile_path
-- and cluster_path NULL for the built-in profile and the trace's own nodes; nodes, gpus and
-- jobs what was replayed; window_start and window_end the pricing window in trace seconds
-- (timed); enriched which values rest on enrichment; parent_run, fork_time and change a
-- what-if forked from a run at a trace second with a change ("policy ragp7").
CREATE TABLE scenarios (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	key TEXT NOT NULL,
	mode TEXT NOT NULL,
	target REAL,
	queue TEXT,
	preempt INTEGER NOT NULL DEFAULT 0,
	dims TEXT NOT NULL DEFAULT '',
	lambda REAL,
	mu REAL,
	coverage REAL,
	sample_nodes INTEGER NOT NULL DEFAULT 0,
	faults TEXT NOT NULL DEFAULT '',
	profile_name TEXT,
	profile_version INTEGER,
	profile_path TEXT,
	profile_text TEXT,
	io_pressure REAL NOT NULL DEFAULT 1,
	cluster_path TEXT,
	cluster_text TEXT,
	nodes INTEGER,
	gpus INTEGER,
	jobs INTEGER,
	window_start INTEGER,
	window_end INTEGER,
	enriched TEXT,
	parent_run INTEGER REFERENCES runs(id),
	fork_time INTEGER,
	change TEXT,
	created_at INTEGER NOT NULL
);

-- A run's scenario, the dims its policy saw, the voidfit that made it. Its time series stays
-- in runs.series (a compressed block of CSV text: t, load, alloc_share, frag, frag_md,
-- stall_share, queued, running, finished, failed), as before this migration.
ALTER TABLE runs ADD COLUMN scenario_id INTEGER REFERENCES scenarios(id);
ALTER TABLE runs ADD COLUMN dims TEXT;
ALTER TABLE runs ADD COLUMN voidfit_version TEXT;

-- GPU-milli-seconds of provisioned GPU time in each bucket (see voidfit(7)), per GPU model
-- and job class ('none' for idle time no waiting job decides); per model they sum to the
-- model's GPUs x the window.
CREATE TABLE run_buckets (
	run_id INTEGER NOT NULL REFERENCES runs(id),
	model TEXT NOT NULL,
	class TEXT NOT NULL,
	bucket TEXT NOT NULL,
	gpu_ms INTEGER NOT NULL,
	PRIMARY KEY (run_id, model, class, bucket)
) WITHOUT ROWID;

CREATE INDEX run_metrics_run ON run_metrics(run_id);

-- Runs of the previous version: one scenario per distinct set of parameters.
INSERT INTO scenarios (trace_id, key, mode, target, queue, preempt, dims, lambda, mu,
		       coverage, sample_nodes, io_pressure, cluster_path, created_at)
SELECT trace_id, k, mode, json_extract(p, '$.target'), json_extract(p, '$.queue'),
       coalesce(json_extract(p, '$.preempt'), 0),
       CASE WHEN json_extract(p, '$.dims_override') THEN json_extract(p, '$.dims') ELSE '' END,
       json_extract(p, '$.lambda'), json_extract(p, '$.mu'), json_extract(p, '$.coverage'),
       coalesce(json_extract(p, '$.sample_nodes'), 0),
       coalesce(json_extract(p, '$.io_pressure'), 1), json_extract(p, '$.cluster.path'),
       min(created_at)
FROM (SELECT trace_id, mode, created_at, params_json AS p,
	     'legacy:' || json_remove(params_json, '$.policy', '$.seed', '$.enrich_seed',
				      '$.dims', '$.voidfit_version') AS k
      FROM runs WHERE json_valid(params_json))
GROUP BY trace_id, k;

UPDATE runs SET
	dims = json_extract(params_json, '$.dims'),
	voidfit_version = json_extract(params_json, '$.voidfit_version'),
	scenario_id = (SELECT id FROM scenarios s WHERE s.trace_id = runs.trace_id AND
		       s.key = 'legacy:' || json_remove(runs.params_json, '$.policy', '$.seed',
							  '$.enrich_seed', '$.dims',
							  '$.voidfit_version'))
WHERE json_valid(params_json);
