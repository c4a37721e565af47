-- The relay's audit of dead-letter requeues: who requeued which selection, when, how many rows and which set (the
-- digest its dry run showed). Written only by the relay, in the transaction of the requeue it records; rows are
-- never updated or deleted by it.
CREATE TABLE outbox_requeues (
    id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    requested_by text        NOT NULL,
    requested_at timestamptz NOT NULL DEFAULT now(),
    selection    text        NOT NULL,
    requeued     integer     NOT NULL CHECK (requeued >= 0),
    digest       text        NOT NULL
);

GRANT SELECT, INSERT ON outbox_requeues TO payments_relay;

-- A dead letter's failure group: its sanitized reason with the parts that differ from one event to the next (UUIDs,
-- numbers) replaced, so that the same cause reads the same: "RecordTooLargeException: The message is <n> bytes ...".
-- The consumer computes the same in Java (service-security's FailureCause); a relay test holds the two together.
CREATE FUNCTION outbox_failure_shape(reason text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT regexp_replace(
               regexp_replace(COALESCE(reason, ''),
                              '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}', '<uuid>', 'g'),
               '[0-9]+', '<n>', 'g')
$$;
