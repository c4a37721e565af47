-- Runs once, on an empty data directory: the pipeline's databases and least-privilege login roles.
-- Change the passwords (and the services' *_DB_PASSWORD) for anything but a local stack.
CREATE ROLE payments_app LOGIN PASSWORD 'payments_app';
CREATE ROLE accounting_app LOGIN PASSWORD 'accounting_app';
-- the relay: logical replication and, through payments_relay (created by the payments migration), the outbox only
CREATE ROLE relay LOGIN REPLICATION PASSWORD 'relay';
-- the consumer's reconcile job: through payments_reconciler and accounting_reconciler (created by the migrations),
-- reads a few columns of each database and writes nothing
CREATE ROLE reconciler LOGIN PASSWORD 'reconciler';

CREATE DATABASE payments OWNER payments_app;
CREATE DATABASE accounting OWNER accounting_app;
REVOKE CONNECT ON DATABASE payments FROM PUBLIC;
REVOKE CONNECT ON DATABASE accounting FROM PUBLIC;
-- the services have no business in the maintenance databases either
REVOKE CONNECT ON DATABASE postgres FROM PUBLIC;
REVOKE CONNECT ON DATABASE template1 FROM PUBLIC;
GRANT CONNECT ON DATABASE payments TO payments_app, relay, reconciler;
GRANT CONNECT ON DATABASE accounting TO accounting_app, reconciler;

\connect payments
-- the migration creates payments_relay; create it here too so the membership can be granted up front
-- (roles are cluster-wide: another database's migration may have created it already)
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_relay') THEN CREATE ROLE payments_relay NOLOGIN; END IF; END $$;
GRANT payments_relay TO relay;
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'payments_reconciler') THEN CREATE ROLE payments_reconciler NOLOGIN; END IF; END $$;
GRANT payments_reconciler TO reconciler;
-- payments_app owns the schema so its migrations can create the publication and grant to payments_relay
ALTER SCHEMA public OWNER TO payments_app;
\connect accounting
DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'accounting_reconciler') THEN CREATE ROLE accounting_reconciler NOLOGIN; END IF; END $$;
GRANT accounting_reconciler TO reconciler;
ALTER SCHEMA public OWNER TO accounting_app;
