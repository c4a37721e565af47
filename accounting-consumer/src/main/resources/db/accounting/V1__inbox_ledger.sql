-- The accounting database. Owned by accounting-consumer.

-- One row per (consumer, event id) this consumer has taken responsibility for. The primary key is the arbiter
-- of concurrent duplicates; retention must keep rows longer than the topic's redelivery horizon.
CREATE TABLE inbox_messages (
    consumer_name text        NOT NULL,
    message_id    uuid        NOT NULL,
    processed_at  timestamptz NOT NULL,
    PRIMARY KEY (consumer_name, message_id)
);

CREATE INDEX ix_inbox_processed_at ON inbox_messages (processed_at);

-- Signed ledger entries: + amount for PaymentCreated, - amount for PaymentRefunded. One entry per event id.
CREATE TABLE ledger_entries (
    id                bigserial PRIMARY KEY,
    consumer_name     text        NOT NULL,
    event_id          uuid        NOT NULL,
    payment_id        uuid        NOT NULL,
    aggregate_version bigint      NOT NULL,
    entry_type        text        NOT NULL,
    amount            numeric     NOT NULL,
    currency          char(3)     NOT NULL,
    trace_id          text,
    created_at        timestamptz NOT NULL
);

CREATE INDEX ix_ledger_payment ON ledger_entries (payment_id, aggregate_version);

-- The last version applied per payment and consumer: the consumer never applies a version out of order.
CREATE TABLE payment_positions (
    consumer_name   text        NOT NULL,
    payment_id      uuid        NOT NULL,
    last_version    bigint      NOT NULL,
    currency        char(3)     NOT NULL,
    updated_at      timestamptz NOT NULL,
    PRIMARY KEY (consumer_name, payment_id)
);

-- Events that arrived ahead of a missing version: held here, applied as soon as the gap fills.
CREATE TABLE parked_events (
    consumer_name     text        NOT NULL,
    payment_id        uuid        NOT NULL,
    aggregate_version bigint      NOT NULL,
    event_id          uuid        NOT NULL,
    event_type        text        NOT NULL,
    schema_version    integer     NOT NULL,
    payload           jsonb       NOT NULL,
    trace_parent      text,
    parked_at         timestamptz NOT NULL,
    PRIMARY KEY (consumer_name, payment_id, aggregate_version)
);
