-- The CDC stream writes nothing back into the outbox: it records how far it got, not what it sent.
--
-- Every second the relay streaming a slot emits a logical decoding message carrying pg_current_snapshot() on the
-- server its stream reads. The message reaches the stream in WAL order; once Kafka has acknowledged everything before
-- it, the relay stores the snapshot as that slot's horizon (one row per slot, one statement). A transaction visible
-- in a snapshot committed before the snapshot was taken, so its rows precede the message in the WAL: a row the slot
-- streams and whose transaction the horizon sees was published and acknowledged.
--
-- Only what a slot can stream is covered. The publication streams inserts: a row made ready by an update (a retry's
-- schedule, a requeue, an operator's fix) is never streamed, and neither is a row committed before its slot began (a
-- lost or recreated slot, a failover without a synchronized slot). stream_coverable says which rows the stream may
-- count; whatever readies a row by an update clears it (the trigger below), and so does the relay, for the rows a new
-- slot missed, when it begins that slot's horizon. Those rows are published by a lease owner (the polling relay, the
-- safety net), which marks published_at as before.
ALTER TABLE outbox_messages ADD COLUMN stream_coverable boolean NOT NULL DEFAULT true;

-- Every row keeps its ready_xid now: a lease owner's mark no longer clears it, so that retention finds old published
-- rows in ix_outbox_ready, the order in which they became ready. Rows marked before this migration get 0.
UPDATE outbox_messages SET ready_xid = 0 WHERE ready_xid IS NULL;
ALTER TABLE outbox_messages ALTER COLUMN ready_xid SET NOT NULL;
ALTER INDEX ix_outbox_pending RENAME TO ix_outbox_ready;

-- Pages no longer keep room for a mark per event (V4's fillfactor 50 served the stream's HOT marks). New pages only.
ALTER TABLE outbox_messages SET (fillfactor = 100);

-- V4's watermark is the claim floor now: a lower bound of ready_xid over every row that is or will become pending, so
-- that claims and counts read from it on. Renamed so that a relay built before this migration, whose claims read
-- outbox_watermark and count every unmarked row as pending, fails instead of republishing what the stream covered
-- (its CDC stream goes on; upgrade every relay before its safety net matters again).
ALTER TABLE outbox_watermark RENAME TO outbox_claim_floor;

-- One row per slot. since: rows visible in it are before the slot's horizon began (the relay took it after the slot
-- existed, and left the rows it could not vouch for to the safety net); horizon: the last snapshot whose message the
-- stream handed back to the engine, everything before it acknowledged by Kafka (NULL until the first one);
-- horizon_lsn: that message's position, which the slot never confirms beyond (the relay hands the engine no offset past
-- its last stored horizon), so a slot found ahead of it is another slot than the one the horizon is of.
CREATE TABLE outbox_stream_horizon (
    slot_name         text        PRIMARY KEY,
    system_identifier bigint      NOT NULL,
    since             pg_snapshot NOT NULL,
    horizon           pg_snapshot,
    horizon_lsn       pg_lsn      NOT NULL,
    stored_at         timestamptz NOT NULL DEFAULT now()
);

-- The horizons that count on this cluster: one stored by another cluster (a logical copy: another system identifier)
-- or ahead of every transaction this cluster has begun (a copy from a cluster further on) covers nothing.
CREATE FUNCTION outbox_stream_horizons() RETURNS SETOF outbox_stream_horizon
    LANGUAGE sql STABLE AS $$
    SELECT h.*
      FROM outbox_stream_horizon h
     WHERE h.system_identifier = (SELECT system_identifier FROM pg_control_system())
       AND pg_snapshot_xmax(COALESCE(h.horizon, h.since)) <= pg_snapshot_xmax(pg_current_snapshot())
$$;

-- Published, defined once: marked by a lease owner, or stream-coverable and seen by every slot that counts (before
-- that slot's horizon began, or by its horizon). Dead-lettered rows are neither published nor pending. Claims, counts,
-- retention, the stream's already-handled check and the invariant check all read this view; security_invoker: it
-- reads with its reader's privileges.
CREATE VIEW outbox_delivery WITH (security_invoker = true) AS
SELECT m.*,
       m.dead_lettered_at IS NULL
           AND (m.published_at IS NOT NULL
                OR (m.stream_coverable
                    AND EXISTS (SELECT FROM outbox_stream_horizons())
                    AND NOT EXISTS (
                        SELECT FROM outbox_stream_horizons() h
                         WHERE NOT (pg_visible_in_snapshot(m.ready_xid::text::xid8, h.since)
                                    OR COALESCE(pg_visible_in_snapshot(m.ready_xid::text::xid8, h.horizon), false)))))
           AS published
  FROM outbox_messages m;

-- Whatever makes a row ready again by an update makes it so in its own transaction (the claim floor cannot have passed
-- it) and takes it out of the stream's reach: a requeue or an operator clearing published_at or dead_lettered_at, and
-- anyone clearing stream_coverable (a retry's schedule, the relay for the rows a slot missed, an operator who wants a
-- streamed row published again).
CREATE OR REPLACE FUNCTION outbox_ready_again() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.ready_xid := pg_current_xact_id()::text::bigint;
    NEW.stream_coverable := false;
    RETURN NEW;
END
$$;
DROP TRIGGER outbox_ready_again ON outbox_messages;
CREATE TRIGGER outbox_ready_again BEFORE UPDATE OF published_at, dead_lettered_at, stream_coverable ON outbox_messages
    FOR EACH ROW
    WHEN (((OLD.published_at IS NOT NULL OR OLD.dead_lettered_at IS NOT NULL)
           AND NEW.published_at IS NULL AND NEW.dead_lettered_at IS NULL)
          OR (OLD.stream_coverable AND NOT NEW.stream_coverable))
    EXECUTE FUNCTION outbox_ready_again();

GRANT SELECT, INSERT, UPDATE ON outbox_stream_horizon TO payments_relay;
GRANT UPDATE (stream_coverable) ON outbox_messages TO payments_relay;
GRANT SELECT, UPDATE ON outbox_delivery TO payments_relay;
