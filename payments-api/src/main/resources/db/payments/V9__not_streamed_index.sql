-- The rows no slot streams (made ready again by an update, or left to the safety net when a slot's horizon began), in
-- the order claims take them. While its relay's own stream delivers, the cdc-mode safety net claims only these and the
-- rows the slot's horizon has passed; without this index it read every pending row ahead of the horizon to find none
-- (1,000,000 of them: about 1 s per claim). An insert makes a row stream-coverable, so inserts never enter it.
-- Not CONCURRENTLY: Flyway's transactional lock would make it wait on itself. Inserts into the outbox wait while this
-- reads the table once; on a large outbox create the index by hand first, CONCURRENTLY, and this does nothing.
CREATE INDEX IF NOT EXISTS ix_outbox_not_streamed ON outbox_messages (ready_xid, occurred_at, id)
    WHERE NOT stream_coverable AND dead_lettered_at IS NULL;
