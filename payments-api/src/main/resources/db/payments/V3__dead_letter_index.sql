-- The relay counts and lists dead letters every few seconds; without this index that is a scan of the whole
-- outbox, published history included.
CREATE INDEX ix_outbox_dead_lettered ON outbox_messages (dead_lettered_at) WHERE dead_lettered_at IS NOT NULL;
