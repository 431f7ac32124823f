-- 002-row-sums.sql: a checksum on every row of the plain SQL tables, so that 'voidfit
-- check' finds a row changed, added or deleted behind voidfit's back. Applied by store.c
-- inside the transaction that sets PRAGMA user_version = 2; store.c then seals every row
-- whose rsum is NULL in every table listed in row_sums (store-seal.c).
--
-- A later migration that adds a table to seal gives it an rsum column and a row here;
-- one that rebuilds a table resets its row here (nrows 0, total 0) and leaves rsum NULL
-- in the new rows: they are sealed when it is applied, as these are now. A nullable
-- column added to a sealed table keeps its rows' sums (NULL cells are not hashed).

-- What voidfit wrote of each sealed table.
CREATE TABLE row_sums (
	tbl TEXT PRIMARY KEY,
	nrows INTEGER NOT NULL, -- rows voidfit wrote
	total INTEGER NOT NULL  -- the sum of their rsum, mod 2^64 (as a signed 64-bit integer)
);

-- rsum: the first 8 bytes of the SHA-256 of the row's other cells, as a signed 64-bit
-- integer (see voidfit(5)).
ALTER TABLE traces ADD COLUMN rsum INTEGER;
ALTER TABLE files ADD COLUMN rsum INTEGER;
ALTER TABLE quarantine ADD COLUMN rsum INTEGER;
ALTER TABLE nodes ADD COLUMN rsum INTEGER;
ALTER TABLE runs ADD COLUMN rsum INTEGER;
ALTER TABLE run_metrics ADD COLUMN rsum INTEGER;

INSERT INTO row_sums(tbl, nrows, total) VALUES
	('traces', 0, 0), ('files', 0, 0), ('quarantine', 0, 0), ('nodes', 0, 0),
	('runs', 0, 0), ('run_metrics', 0, 0);
