-- 001-init.sql: the first voidfit store schema. Applied by store.c inside the transaction
-- that sets PRAGMA user_version = 1 (application_id is set with it).

-- One import makes one trace: its jobs and nodes.
CREATE TABLE traces (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	created_at INTEGER NOT NULL,      -- seconds since the epoch
	njobs INTEGER NOT NULL DEFAULT 0, -- rows in job_blocks
	nnodes INTEGER NOT NULL DEFAULT 0 -- rows in nodes
);

-- Provenance of every imported file, and how its bytes are kept (raw_blocks).
CREATE TABLE files (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	name TEXT NOT NULL,             -- base name as imported
	format TEXT NOT NULL,           -- detected or given format
	size INTEGER NOT NULL,          -- bytes as imported
	sha256 TEXT NOT NULL,           -- hex of those bytes
	rows_read INTEGER NOT NULL DEFAULT 0,
	rows_accepted INTEGER NOT NULL DEFAULT 0,
	rows_quarantined INTEGER NOT NULL DEFAULT 0,
	imported_at INTEGER NOT NULL,   -- seconds since the epoch
	voidfit_version TEXT NOT NULL,
	raw_mode TEXT,                  -- 'text' or 'opaque'; NULL until the bytes are stored
	raw_eol TEXT,                   -- text: 'lf' or 'crlf', the usual line ending
	raw_final_newline INTEGER,      -- text: 1 if the file ends with a line ending
	raw_lines INTEGER,              -- text: physical lines
	raw_exceptions INTEGER,         -- text: lines kept verbatim
	raw_ncols INTEGER,              -- text: fields of a simple line
	raw_bytes INTEGER               -- bytes stored (must equal size)
);

-- Rows an importer refused: where, why, and the text as read.
CREATE TABLE quarantine (
	file_id INTEGER NOT NULL REFERENCES files(id),
	line INTEGER NOT NULL, -- 1-based line in the file
	reason TEXT NOT NULL,
	raw BLOB NOT NULL
);

-- One row per node of a trace, in trace order (idx); -1 = not recorded.
CREATE TABLE nodes (
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	idx INTEGER NOT NULL,
	name TEXT NOT NULL,
	grp TEXT NOT NULL,
	model TEXT,            -- GPU model name, NULL for a node without GPUs
	ngpu INTEGER NOT NULL,
	cpu_milli INTEGER NOT NULL,
	mem_mib INTEGER NOT NULL,
	gpu_milli INTEGER NOT NULL,
	hbm_mib INTEGER NOT NULL,
	net_mbps INTEGER NOT NULL,
	sto_mbps INTEGER NOT NULL,
	iocpu_milli INTEGER NOT NULL,
	enriched INTEGER NOT NULL -- bit mask of the dims enrichment filled in
);

-- Bytes of imported files, as sealed zblk blocks in order (seq from 0).
CREATE TABLE raw_blocks (
	file_id INTEGER NOT NULL REFERENCES files(id),
	seq INTEGER NOT NULL,
	data BLOB NOT NULL
);

-- Jobs of a trace as sealed zblk blocks of at most 4096 jobs, in insertion order (seq).
-- A block of jobs parsed from a text file's lines is coded against the numbers of those
-- lines (its header names the file and the 0-based physical line of its first job: see
-- store-jobs.c); blocks of other jobs are coded alone. Rows may be inserted out of seq
-- order: read them ORDER BY seq.
CREATE TABLE job_blocks (
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	seq INTEGER NOT NULL,
	nrows INTEGER NOT NULL,
	data BLOB NOT NULL
);

-- Replay runs, their metrics, and their compressed time series and per-job results.
CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	policy TEXT NOT NULL,
	mode TEXT NOT NULL,
	seed INTEGER NOT NULL,   -- the uint64 seed, stored as its int64 bit pattern
	params_json TEXT NOT NULL,
	summary_json TEXT NOT NULL,
	created_at INTEGER NOT NULL,
	series BLOB,             -- sealed zblk block of bytes, NULL if none
	jobs BLOB                -- sealed zblk block of bytes, NULL if none
);

CREATE TABLE run_metrics (
	run_id INTEGER NOT NULL REFERENCES runs(id),
	key TEXT NOT NULL,
	value REAL
);
