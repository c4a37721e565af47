-- The payments database. Owned by payments-api; the relay only reads and marks outbox_messages.

CREATE TABLE payments (
    id              uuid PRIMARY KEY,
    client_id       text        NOT NULL,
    amount          numeric     NOT NULL CHECK (amount > 0),
    currency        char(3)     NOT NULL,
    description     text,
    refunded_amount numeric     NOT NULL DEFAULT 0,
    status          text        NOT NULL,
    version         bigint      NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    CONSTRAINT ck_refunds_within_amount CHECK (refunded_amount >= 0 AND refunded_amount <= amount)
);

CREATE INDEX ix_payments_client ON payments (client_id, created_at);

CREATE TABLE refunds (
    id          uuid PRIMARY KEY,
    payment_id  uuid        NOT NULL REFERENCES payments (id),
    amount      numeric     NOT NULL CHECK (amount > 0),
    created_at  timestamptz NOT NULL
);

CREATE INDEX ix_refunds_payment ON refunds (payment_id);

-- Exactly the article's outbox columns. attempts, next_attempt_at, lock_id and locked_until belong to the
-- polling relay; published_at is set by both relay modes once the broker acknowledged the record.
CREATE TABLE outbox_messages (
    id                uuid PRIMARY KEY,
    aggregate_type    text        NOT NULL,
    aggregate_id      uuid        NOT NULL,
    aggregate_version bigint      NOT NULL,
    event_type        text        NOT NULL,
    schema_version    integer     NOT NULL,
    payload           jsonb       NOT NULL,
    trace_parent      text,
    occurred_at       timestamptz NOT NULL,
    published_at      timestamptz,
    attempts          integer     NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz NOT NULL DEFAULT now(),
    lock_id           uuid,
    locked_until      timestamptz,
    last_error        text,
    dead_lettered_at  timestamptz
);

CREATE INDEX ix_outbox_ready
    ON outbox_messages (next_attempt_at, occurred_at, id)
    WHERE published_at IS NULL
      AND dead_lettered_at IS NULL;

CREATE UNIQUE INDEX ux_outbox_aggregate_version ON outbox_messages (aggregate_type, aggregate_id, aggregate_version);

-- One row per (client, Idempotency-Key): the request fingerprint and the exact response that was sent.
CREATE TABLE idempotency_keys (
    client_id        text        NOT NULL,
    idempotency_key  text        NOT NULL,
    request_hash     text        NOT NULL,
    response_status  integer,
    response_body    bytea,
    resource_id      uuid,
    created_at       timestamptz NOT NULL,
    expires_at       timestamptz NOT NULL,
    PRIMARY KEY (client_id, idempotency_key)
);

CREATE INDEX ix_idempotency_keys_expires ON idempotency_keys (expires_at);

-- Change data capture streams inserts only: published_at marks and retention deletes never reach Kafka.
CREATE PUBLICATION outbox_publication FOR TABLE outbox_messages WITH (publish = 'insert');
