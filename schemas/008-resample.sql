-- voidfit store schema, migration 8: a scenario may replay a block bootstrap of its trace.
--
-- resample: r >= 1 for the r-th resample of the trace (man 7 voidfit, the block bootstrap),
-- NULL for the trace as recorded; block_s: the length of its blocks in seconds, NULL when
-- not resampled. Both are NULL in the rows of earlier stores, and NULL cells are not hashed
-- (004-row-sums.sql), so those rows keep their sums.

ALTER TABLE scenarios ADD COLUMN resample INTEGER;
ALTER TABLE scenarios ADD COLUMN block_s INTEGER;
