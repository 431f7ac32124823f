-- voidfit store schema, migration 3: right-sizing results ('voidfit size').
-- A sizing is, for one policy on one scenario, the smallest cluster found that still meets an
-- SLO at every seed seed_lo..seed_hi (stored as the int64 bit pattern of the uint64 seed)
-- and leaves no more jobs unplaceable than the full cluster: slo as 'voidfit size --slo'
-- reads it ('wait_p95<=15m', terms comma-separated; '' for the unplaceable rule alone);
-- shrink the GPU model shrunk alone, '' when every GPU node group shrank; nodes and GPUs of
-- the full cluster and of the smallest one; usd_per_year what the retired GPUs cost a year
-- (8760 h) at price_tier and the --gpu-price overrides in prices ('' for none); probes the
-- cluster sizes tried. Running the same sizing again replaces its row.
CREATE TABLE sizings (
	id INTEGER PRIMARY KEY,
	scenario_id INTEGER NOT NULL REFERENCES scenarios(id),
	policy TEXT NOT NULL,
	slo TEXT NOT NULL,
	seed_lo INTEGER NOT NULL,
	seed_hi INTEGER NOT NULL,
	shrink TEXT NOT NULL DEFAULT '',
	nodes_full INTEGER NOT NULL,
	nodes_min INTEGER NOT NULL,
	gpus_full INTEGER NOT NULL,
	gpus_min INTEGER NOT NULL,
	gpus_retired INTEGER NOT NULL,
	usd_per_year REAL NOT NULL,
	price_tier TEXT NOT NULL,
	prices TEXT NOT NULL DEFAULT '',
	probes INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (scenario_id, policy, slo, seed_lo, seed_hi, shrink)
);

-- The nodes and GPUs of each GPU model in the full cluster and in the smallest one (CPU-only
-- nodes are never retired and have no row).
CREATE TABLE sizing_models (
	sizing_id INTEGER NOT NULL REFERENCES sizings(id),
	model TEXT NOT NULL,
	nodes_full INTEGER NOT NULL,
	nodes_min INTEGER NOT NULL,
	gpus_full INTEGER NOT NULL,
	gpus_min INTEGER NOT NULL,
	PRIMARY KEY (sizing_id, model)
) WITHOUT ROWID;
