-- voidfit store schema, migration 6: every table a figure is read from is sealed, and a
-- run's blocks are a table of their own.
--
-- Sealed from here on (an rsum column and a row in row_sums, see 004-row-sums.sql):
-- scenarios, run_buckets, sizings, sizing_models and run_blobs. run_buckets and
-- sizing_models were WITHOUT ROWID tables; a row is sealed and checked by its rowid, so they
-- are rebuilt as ordinary tables with the same columns and keys. Their rows are sealed as
-- they are found when this migration is applied.
--
-- runs held its series and per-job results (series BLOB, jobs BLOB) before the columns
-- later migrations added (scenario_id, dims, voidfit_version, rsum): reading those walked
-- each run's blocks, page by page, so listing runs read every run's blocks. The blocks move
-- to run_blobs (one row per run, rsum before the blocks, series before jobs), and runs is
-- rebuilt without them (seed: the uint64 seed as its int64 bit pattern, as before); its
-- rows are sealed again without the blocks.
--
-- The comments stay outside the CREATE statements: SQLite keeps a statement's text in
-- every store, and a small store is mostly its schema.

ALTER TABLE scenarios ADD COLUMN rsum INTEGER;
ALTER TABLE sizings ADD COLUMN rsum INTEGER;

CREATE TEMP TABLE old_run_buckets AS SELECT * FROM run_buckets;
DROP TABLE run_buckets;
CREATE TABLE run_buckets (
	run_id INTEGER NOT NULL REFERENCES runs(id),
	model TEXT NOT NULL,
	class TEXT NOT NULL,
	bucket TEXT NOT NULL,
	gpu_ms INTEGER NOT NULL,
	rsum INTEGER,
	PRIMARY KEY (run_id, model, class, bucket)
);
INSERT INTO run_buckets(run_id, model, class, bucket, gpu_ms)
SELECT run_id, model, class, bucket, gpu_ms FROM temp.old_run_buckets ORDER BY run_id, model, class, bucket;
DROP TABLE temp.old_run_buckets;

CREATE TEMP TABLE old_sizing_models AS SELECT * FROM sizing_models;
DROP TABLE sizing_models;
CREATE TABLE sizing_models (
	sizing_id INTEGER NOT NULL REFERENCES sizings(id),
	model TEXT NOT NULL,
	nodes_full INTEGER NOT NULL,
	nodes_min INTEGER NOT NULL,
	gpus_full INTEGER NOT NULL,
	gpus_min INTEGER NOT NULL,
	rsum INTEGER,
	PRIMARY KEY (sizing_id, model)
);
INSERT INTO sizing_models(sizing_id, model, nodes_full, nodes_min, gpus_full, gpus_min)
SELECT sizing_id, model, nodes_full, nodes_min, gpus_full, gpus_min FROM temp.old_sizing_models
ORDER BY sizing_id, model;
DROP TABLE temp.old_sizing_models;

-- A run's blocks: each a sealed zblk block of bytes, NULL if none (series: CSV text of the
-- time series, see 002-runs.sql; jobs: the per-job results).
CREATE TABLE run_blobs (
	run_id INTEGER PRIMARY KEY REFERENCES runs(id),
	rsum INTEGER,
	series BLOB,
	jobs BLOB
);
-- Run by run, so that the pages one run's blocks leave hold the next one's: the store grows
-- by one run's blocks, not by all of them.
CREATE TEMP TRIGGER move_run_blobs BEFORE UPDATE OF series, jobs ON main.runs
BEGIN
	INSERT INTO run_blobs(run_id, series, jobs) VALUES (old.id, old.series, old.jobs);
END;
UPDATE runs SET series = NULL, jobs = NULL;
DROP TRIGGER temp.move_run_blobs;
CREATE TEMP TABLE old_runs AS
SELECT id, trace_id, policy, mode, seed, params_json, summary_json, created_at, scenario_id,
       dims, voidfit_version FROM runs;
DROP TABLE runs;
CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	policy TEXT NOT NULL,
	mode TEXT NOT NULL,
	seed INTEGER NOT NULL,
	params_json TEXT NOT NULL,
	summary_json TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	scenario_id INTEGER REFERENCES scenarios(id),
	dims TEXT,
	voidfit_version TEXT,
	rsum INTEGER
);
INSERT INTO runs(id, trace_id, policy, mode, seed, params_json, summary_json, created_at,
		 scenario_id, dims, voidfit_version)
SELECT * FROM temp.old_runs ORDER BY id;
DROP TABLE temp.old_runs;
UPDATE row_sums SET nrows = 0, total = 0 WHERE tbl = 'runs';

INSERT INTO row_sums(tbl, nrows, total) VALUES
	('scenarios', 0, 0), ('run_buckets', 0, 0), ('sizings', 0, 0), ('sizing_models', 0, 0),
	('run_blobs', 0, 0);
