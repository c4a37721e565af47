-- Least privilege for the relay: it reads and marks the outbox and deletes old published rows; it cannot see or
-- touch payments, refunds or idempotency keys. payments_relay is a group role (NOLOGIN); operators create the
-- relay's login role (with REPLICATION, for CDC) as a member of it. Roles are cluster-wide, hence IF NOT EXISTS.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_relay') THEN
        CREATE ROLE payments_relay NOLOGIN;
    END IF;
END
$$;

GRANT USAGE ON SCHEMA public TO payments_relay;
GRANT SELECT, DELETE ON outbox_messages TO payments_relay;
GRANT UPDATE (published_at, attempts, next_attempt_at, lock_id, locked_until, last_error, dead_lettered_at)
    ON outbox_messages TO payments_relay;
