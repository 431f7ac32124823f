-- voidfit store schema, migration 7: a trace's own GPU models ('voidfit import --gpu-models
-- FILE'), kept with it so that a replay, report or size of the trace prices and sizes its
-- GPUs the same on any machine.
--
-- One row per row of the file: a model the built-in table lacks (hbm_mib, the four prices
-- and their sources, as in schemas/gpu-models.csv), or aliases of a model (those columns
-- NULL). id is the model's id in the trace's jobs (the bits of their allowed-model masks):
-- the built-in models' ids first, then the added ones. Opening a store adds every trace's
-- models to the process's table; a model named twice in a store is the same model. Sealed
-- (see 004-row-sums.sql). On one line, without a key: SQLite keeps the statement's text
-- in every store, and an index would take a page of every store for a few rows.

CREATE TABLE gpu_models (trace_id INTEGER NOT NULL REFERENCES traces(id), name TEXT NOT NULL, aliases TEXT NOT NULL, id INTEGER NOT NULL, hbm_mib INTEGER, on_demand REAL, on_demand_source TEXT, reserved REAL, reserved_source TEXT, spot REAL, spot_source TEXT, owned REAL, owned_source TEXT, rsum INTEGER);

INSERT INTO row_sums(tbl, nrows, total) VALUES ('gpu_models', 0, 0);
