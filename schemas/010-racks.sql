-- voidfit store schema, migration 10: a node may sit under a rack or network switch (man 7
-- voidfit: a gang kept under one switch, or slowed by --cross-switch-slowdown across them).
--
-- rack is NULL for a node whose trace names none, so that a row of a rackless node keeps
-- its checksum (NULL cells are not hashed). This version marks a store whose nodes may
-- carry racks: a voidfit that knows only version 9 refuses the store as newer than it,
-- rather than losing the racks it cannot read.
ALTER TABLE nodes ADD COLUMN rack TEXT;
