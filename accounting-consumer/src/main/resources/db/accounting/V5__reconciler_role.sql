-- Least privilege for the reconcile job: it reads which events this database's consumers applied, took, parked and
-- where each payment stands, and the amounts of the ledger; nothing else, and it writes nothing. It takes one session
-- advisory lock (no privilege needed) so that one job runs at a time. accounting_reconciler is a group role
-- (NOLOGIN); operators create the job's login role as a member of it.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'accounting_reconciler') THEN
        CREATE ROLE accounting_reconciler NOLOGIN;
    END IF;
END
$$;

GRANT USAGE ON SCHEMA public TO accounting_reconciler;
GRANT SELECT (consumer_name, event_id, payment_id, amount) ON ledger_entries TO accounting_reconciler;
GRANT SELECT (consumer_name, message_id) ON inbox_messages TO accounting_reconciler;
GRANT SELECT (consumer_name, payment_id, event_id) ON parked_events TO accounting_reconciler;
GRANT SELECT (consumer_name, payment_id, last_version) ON payment_positions TO accounting_reconciler;
