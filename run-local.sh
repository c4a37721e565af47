#!/usr/bin/env bash
# The whole pipeline on this machine, no Docker: embedded PostgreSQL + Kafka, payments-api, cdc-relay,
# accounting-consumer. Builds first; data survives restarts in ./.local (delete it for a clean slate).
set -euo pipefail
cd "$(dirname "$0")"
./mvnw -B -q -DskipTests package
exec java -jar local-run/target/local-run-*-exec.jar
