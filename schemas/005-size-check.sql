-- voidfit store schema, migration 5: whether a sizing's answer is a margin or only a
-- boundary. 'voidfit size' assumes a cluster that meets the SLO still meets it with more
-- nodes, and tries the two sizes above the one it found to check: checked_above is how
-- many it tried (-1: not known, a sizing made before this migration; fewer than 2 where the
-- full cluster came first), miss_above_nodes the nodes of the first of them that missed
-- the SLO (0: none missed) and miss_above what it missed ('' if none).
ALTER TABLE sizings ADD COLUMN checked_above INTEGER NOT NULL DEFAULT -1;
ALTER TABLE sizings ADD COLUMN miss_above_nodes INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sizings ADD COLUMN miss_above TEXT NOT NULL DEFAULT '';
