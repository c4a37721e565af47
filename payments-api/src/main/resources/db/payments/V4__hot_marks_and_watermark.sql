-- Marks that are HOT updates. A published_at mark wrote a new version of the row elsewhere, with new entries in the
-- primary key and the aggregate-version index, because published_at was in ix_outbox_ready's predicate: PostgreSQL
-- updates a row in place (HOT) only when no column an index uses, predicates included, changes, and only when its
-- page has room. Now no index uses published_at, lock_id, locked_until, attempts or next_attempt_at, and outbox
-- pages keep half their space for the marked version of their rows.
--
-- The relay finds unpublished rows from a watermark instead. ready_xid is the transaction that made the row ready to
-- publish: its insert; a retry's schedule, a requeue or any update that clears published_at or dead_lettered_at set
-- it again. A lease owner's mark (polling relay, safety net) clears it, which takes the row out of
-- ix_outbox_pending: those marks are not HOT, and the next claims need not read what was just published.
-- outbox_watermark.ready_xid is a lower bound of ready_xid over every row that is or will become ready: no row at or
-- beyond it has been skipped. The relay raises it (Outbox.advanceWatermark) to the least of the oldest transaction
-- still running (it may yet commit a row, so the watermark never passes it), the oldest ready row from the current
-- watermark on, and one past the newest row.
ALTER TABLE outbox_messages ADD COLUMN ready_xid bigint;
ALTER TABLE outbox_messages ALTER COLUMN ready_xid SET DEFAULT (pg_current_xact_id()::text::bigint);
-- Rows written before this migration: the published and dead-lettered keep none, outside the index; the pending are
-- made ready by this transaction, so the watermark starts where the relay has something to read. The ALTER above
-- locked the table: every transaction that wrote to it before has ended.
UPDATE outbox_messages SET ready_xid = pg_current_xact_id()::text::bigint
 WHERE published_at IS NULL AND dead_lettered_at IS NULL;

DROP INDEX ix_outbox_ready;
-- In the order claims take rows: as they became ready, then as they occurred. Neither column ever changes.
CREATE INDEX ix_outbox_pending ON outbox_messages (ready_xid, occurred_at, id)
    WHERE ready_xid IS NOT NULL AND dead_lettered_at IS NULL;

-- New pages only; a VACUUM FULL or pg_repack applies it to existing ones.
ALTER TABLE outbox_messages SET (fillfactor = 50);

CREATE TABLE outbox_watermark (
    only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    ready_xid bigint  NOT NULL
);
INSERT INTO outbox_watermark (ready_xid) VALUES (pg_snapshot_xmin(pg_current_snapshot())::text::bigint);

-- Whatever makes a published or dead-lettered row ready again (the relay's requeue, an operator's UPDATE) makes it
-- ready in its own transaction, which the watermark cannot have passed. Marks never fire it.
CREATE FUNCTION outbox_ready_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.ready_xid := pg_current_xact_id()::text::bigint;
    RETURN NEW;
END
$$;
CREATE TRIGGER outbox_ready_again BEFORE UPDATE OF published_at, dead_lettered_at ON outbox_messages
    FOR EACH ROW
    WHEN ((OLD.published_at IS NOT NULL OR OLD.dead_lettered_at IS NOT NULL)
          AND NEW.published_at IS NULL AND NEW.dead_lettered_at IS NULL)
    EXECUTE FUNCTION outbox_ready_again();

GRANT SELECT, UPDATE (ready_xid) ON outbox_watermark TO payments_relay;
GRANT UPDATE (ready_xid) ON outbox_messages TO payments_relay;
