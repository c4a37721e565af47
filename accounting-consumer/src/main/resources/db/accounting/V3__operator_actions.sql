-- Operators' actions on the consumer's dead letters and parked events. Owned by accounting-consumer.

-- One row per dead-letter record replayed to the main topic, keyed by the record's position in the dead-letter topic
-- and its timestamp (so a recreated topic, whose offsets start again, is not mistaken for the old one): a second
-- replay of the same record finds the row and publishes nothing. Written in the transaction that waits for
-- the broker's acknowledgement, so a failed publish leaves no row. Owner: DeadLetterReplays.
CREATE TABLE dlt_replays (
    consumer_name    text        NOT NULL,
    dlt_topic        text        NOT NULL,
    dlt_partition    integer     NOT NULL,
    dlt_offset       bigint      NOT NULL,
    dlt_timestamp    bigint      NOT NULL,
    event_id         uuid,
    target_partition integer,
    target_offset    bigint,
    replayed_by      text        NOT NULL,
    replayed_at      timestamptz NOT NULL,
    PRIMARY KEY (consumer_name, dlt_topic, dlt_partition, dlt_offset, dlt_timestamp)
);

-- The audit of version gaps an operator declared will never fill: which versions of which payment were skipped,
-- by whom (the operator's name and the credential's principal) and why. Written in the transaction that moves the
-- payment's position past the gap and applies its parked events. Owner: GapResolutions.
CREATE TABLE gap_resolutions (
    id            bigserial   PRIMARY KEY,
    consumer_name text        NOT NULL,
    payment_id    uuid        NOT NULL,
    skipped_from  bigint      NOT NULL,
    skipped_to    bigint      NOT NULL,
    applied       integer     NOT NULL,
    operator      text        NOT NULL,
    principal     text        NOT NULL,
    reason        text        NOT NULL,
    resolved_at   timestamptz NOT NULL,
    CHECK (skipped_from >= 1 AND skipped_to >= skipped_from)
);

CREATE INDEX ix_gap_resolutions_payment ON gap_resolutions (consumer_name, payment_id);
