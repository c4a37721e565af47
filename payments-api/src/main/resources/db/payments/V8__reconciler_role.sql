-- Least privilege for the reconcile job (the accounting consumer's, with credentials of its own): it reads which
-- events were committed, where each stands in delivery, and each payment's amount, refunds and version; nothing else,
-- and it writes nothing. payments_reconciler is a group role (NOLOGIN); operators create the job's login role as a
-- member of it. Roles are cluster-wide, hence IF NOT EXISTS.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_reconciler') THEN
        CREATE ROLE payments_reconciler NOLOGIN;
    END IF;
END
$$;

-- The outbox as the job reads it: the columns it needs. An ordinary view reads its table with its owner's
-- privileges, so the job needs no privilege on outbox_messages itself (its payloads and errors stay out of reach).
CREATE VIEW outbox_reconcile AS
SELECT id, aggregate_id, event_type, ready_xid, occurred_at, dead_lettered_at
  FROM outbox_messages;

-- Which of the given events are published, as outbox_delivery defines it (the one definition): the job asks only
-- about the events it found not applied, to say whether each left the outbox. SECURITY DEFINER: it reads the view as
-- its owner, and only this answer reaches the caller.
CREATE FUNCTION outbox_published_among(ids uuid[]) RETURNS SETOF uuid
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
    SELECT id FROM outbox_delivery WHERE id = ANY(ids) AND published
$$;
REVOKE EXECUTE ON FUNCTION outbox_published_among(uuid[]) FROM PUBLIC;

GRANT USAGE ON SCHEMA public TO payments_reconciler;
GRANT SELECT ON outbox_reconcile TO payments_reconciler;
GRANT EXECUTE ON FUNCTION outbox_published_among(uuid[]) TO payments_reconciler;
GRANT SELECT (id, amount, refunded_amount, version) ON payments TO payments_reconciler;
