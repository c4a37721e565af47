#!/bin/bash
# Compose's one-shot kafka-init: as the admin, give each service principal its SCRAM credential, create the
# pipeline's topics, and grant exactly the ACLs of acls.txt (the local run applies the same two files). Every step
# is idempotent, so it runs again on every `docker compose up`.
set -euo pipefail
bin=${KAFKA_BIN:-/opt/kafka/bin}
here=${PIPELINE_KAFKA:-/opt/pipeline-kafka}
server=${KAFKA_SERVER:-kafka:29092}
admin=$(mktemp)
trap 'rm -f "$admin"' EXIT
printf '%s\n' security.protocol=SASL_PLAINTEXT sasl.mechanism=SCRAM-SHA-256 \
  "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"$ADMIN_PASSWORD\";" \
  > "$admin"

for user in relay accounting replay reconciler ui; do
  var="${user^^}_PASSWORD"
  "$bin/kafka-configs.sh" --bootstrap-server "$server" --command-config "$admin" --alter \
    --add-config "SCRAM-SHA-256=[iterations=8192,password=${!var}]" --entity-type users --entity-name "$user"
done

grep -v '^\s*#' "$here/topics.txt" | while read -r name partitions; do
  [ -n "${name:-}" ] || continue
  "$bin/kafka-topics.sh" --bootstrap-server "$server" --command-config "$admin" --create --if-not-exists \
    --topic "$name" --partitions "$partitions" --replication-factor 1
done

grep -v '^\s*#' "$here/acls.txt" | while read -r principal operation resource pattern name; do
  [ -n "${principal:-}" ] || continue
  # DESCRIBE_CONFIGS -> DescribeConfigs, as kafka-acls spells operations
  op=$(echo "$operation" | awk -F_ '{for (i = 1; i <= NF; i++) printf "%s%s", toupper(substr($i, 1, 1)), tolower(substr($i, 2))}')
  case "$resource" in
    TOPIC) target=(--topic "$name") ;;
    GROUP) target=(--group "$name") ;;
    CLUSTER) target=(--cluster) ;;
    *) echo "unknown resource type $resource" >&2; exit 1 ;;
  esac
  "$bin/kafka-acls.sh" --bootstrap-server "$server" --command-config "$admin" --add \
    --allow-principal "User:$principal" --operation "$op" "${target[@]}" \
    --resource-pattern-type "$(echo "$pattern" | tr '[:upper:]' '[:lower:]')"
done
echo "kafka provisioned"
