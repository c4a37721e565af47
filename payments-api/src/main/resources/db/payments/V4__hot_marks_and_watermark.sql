-- Marks that are HOT updates. A published_at mark rewrote the whole row elsewhere, with new entries in every index,
-- because published_at was in ix_outbox_ready's predicate: PostgreSQL updates a row in place (HOT) only when no
-- column an index uses, predicates included, changes, and only when its page has room. Now no index uses
-- published_at, lock_id, locked_until, attempts or next_attempt_at, and outbox pages keep half their space for the
-- marked version of their rows.
--
-- The relay finds unpublished rows from a watermark instead: ready_xid is the transaction that made the row ready
-- to publish (its insert; a retry's schedule or a requeue set it again), and outbox_watermark.ready_xid is a
-- lower bound of ready_xid over every row that is or will become ready: no row at or beyond it has been skipped.
-- The relay raises it (Outbox.advanceWatermark) to the lesser of the oldest transaction still running and the
-- oldest ready row it finds from the current watermark on; a transaction still running may yet commit a row, so
-- the watermark never passes it. Rows written before this migration keep 0, where the watermark starts.
ALTER TABLE outbox_messages ADD COLUMN ready_xid bigint NOT NULL DEFAULT 0;
ALTER TABLE outbox_messages ALTER COLUMN ready_xid SET DEFAULT (pg_current_xact_id()::text::bigint);

DROP INDEX ix_outbox_ready;
CREATE INDEX ix_outbox_pending ON outbox_messages (ready_xid) WHERE dead_lettered_at IS NULL;

-- New pages only; a VACUUM FULL or pg_repack applies it to existing ones.
ALTER TABLE outbox_messages SET (fillfactor = 50);

CREATE TABLE outbox_watermark (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    ready_xid bigint  NOT NULL
);
INSERT INTO outbox_watermark (ready_xid) VALUES (0);

GRANT SELECT, UPDATE (ready_xid) ON outbox_watermark TO payments_relay;
GRANT UPDATE (ready_xid) ON outbox_messages TO payments_relay;
