-- The audit of operators' replay requests of dead letters: who asked, when, for which selection, how many records it
-- took (and which, as the digest a dry run showed), how many were published and how many had been replayed before.
-- One row per request that replayed (a dry run changes nothing and writes nothing), after its records; each record's
-- own replay is in dlt_replays. Owner: DeadLetterReplays.
CREATE TABLE dlt_replay_requests (
    id               bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer_name    text        NOT NULL,
    dlt_topic        text        NOT NULL,
    requested_by     text        NOT NULL,
    requested_at     timestamptz NOT NULL,
    selection        text        NOT NULL,
    dead_letters     bigint      NOT NULL,
    replayed         integer     NOT NULL,
    already_replayed integer     NOT NULL,
    digest           text        NOT NULL
);
