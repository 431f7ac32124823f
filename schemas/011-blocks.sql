-- voidfit store schema, migration 11: a block of jobs may name the lines its jobs came from,
-- and nodes are kept in blocks too.
--
-- No table changes: a job block coded against its file's lines may carry the gaps between
-- its jobs' lines (store-jobs.c, see voidfit(5)), so that jobs parsed from lines that are not
-- consecutive (a quarantined row between them, a reader that makes no job of some lines)
-- are still coded against their own lines; and its gpu column may hold each job's gpu
-- demand less num_gpu x gpu_milli, which no other column's multiple gives. This version
-- marks a store whose blocks may carry either: a voidfit that knows only version 10 refuses
-- the store as newer than it, rather than a block it cannot read.
--
-- And a trace's nodes go to node_blocks, as sealed zblk blocks of at most 4096 nodes in
-- seq order (store-nodes.c), rather than a row each of the nodes table (70-odd bytes a
-- node); a store made before keeps its rows there, read first.
CREATE TABLE node_blocks (
	trace_id INTEGER NOT NULL REFERENCES traces(id),
	seq INTEGER NOT NULL,
	nrows INTEGER NOT NULL,
	data BLOB NOT NULL
);
