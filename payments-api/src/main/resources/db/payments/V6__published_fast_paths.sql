-- The same published as V5's view, computed without visiting the horizons per row for nearly every row.
--
-- V5 asked, for each row and each horizon that counts, whether the row's transaction is visible in the horizon's
-- since or horizon snapshot: a rescan of outbox_stream_horizon and two text-to-xid8 casts per row, about 3 us. The
-- relay's counts and its safety net read the whole outbox past the claim floor every few seconds: during a drain of
-- 100,000 rows that was most of the relay's CPU in PostgreSQL.
--
-- A transaction below a snapshot's xmin is visible in it; one at or beyond its xmax is not. So, over the horizons
-- that count (computed once per statement, as an InitPlan):
--   ready_xid below the least, over the horizons, of the greater xmin of since and horizon: visible in one of the two
--     for every horizon, so covered;
--   ready_xid at or beyond the least, over the horizons, of the greater xmax: visible in neither for some horizon, so
--     not covered;
--   in between (transactions that were running when a snapshot was taken): V5's exact test, unchanged.
-- StreamHorizonIntegrationTests.theFastPathsAgreeWithTheDefinitionOnEveryTransaction compares it with V5's definition.
CREATE OR REPLACE VIEW outbox_delivery WITH (security_invoker = true) AS
SELECT m.*,
       m.dead_lettered_at IS NULL
           AND (m.published_at IS NOT NULL
                OR (m.stream_coverable
                    AND EXISTS (SELECT FROM outbox_stream_horizons())
                    AND CASE
                            WHEN m.ready_xid < (
                                    SELECT min(GREATEST(pg_snapshot_xmin(h.since)::text::bigint,
                                                        pg_snapshot_xmin(COALESCE(h.horizon, h.since))::text::bigint))
                                      FROM outbox_stream_horizons() h)
                                THEN true
                            WHEN m.ready_xid >= (
                                    SELECT min(GREATEST(pg_snapshot_xmax(h.since)::text::bigint,
                                                        pg_snapshot_xmax(COALESCE(h.horizon, h.since))::text::bigint))
                                      FROM outbox_stream_horizons() h)
                                THEN false
                            ELSE NOT EXISTS (
                                SELECT FROM outbox_stream_horizons() h
                                 WHERE NOT (pg_visible_in_snapshot(m.ready_xid::text::xid8, h.since)
                                            OR COALESCE(pg_visible_in_snapshot(m.ready_xid::text::xid8, h.horizon),
                                                        false)))
                        END))
           AS published
  FROM outbox_messages m;
