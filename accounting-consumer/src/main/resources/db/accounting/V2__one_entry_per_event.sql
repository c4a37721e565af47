-- One ledger entry per (consumer, event id): the inbox decides it, the ledger states it where the entries are, so a
-- second effect of one event cannot commit whatever path wrote it.
ALTER TABLE ledger_entries ADD CONSTRAINT ux_ledger_entries_event UNIQUE (consumer_name, event_id);

-- A parked event keeps its whole envelope (occurred_at included), so it is applied later exactly as it arrived.
ALTER TABLE parked_events ADD COLUMN occurred_at timestamptz;
UPDATE parked_events SET occurred_at = parked_at WHERE occurred_at IS NULL;
ALTER TABLE parked_events ALTER COLUMN occurred_at SET NOT NULL;
