#!/bin/bash
# The broker's start in compose. On an empty volume, format the log directory with the admin's SCRAM credential in
# the bootstrap metadata (the apache/kafka image cannot do that itself): every listener, the controller's included,
# requires SCRAM, so the broker needs that credential to reach its own controller, and the admin to provision.
# Then the image's own start, which renders server.properties from the KAFKA_* variables.
set -euo pipefail
data=/var/lib/kafka/data
if [ ! -f "$data/meta.properties" ]; then
  printf '%s\n' process.roles=broker,controller node.id=1 controller.quorum.voters=1@kafka:9093 \
    controller.listener.names=CONTROLLER listeners=CONTROLLER://:9093 \
    listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT "log.dirs=$data" > /tmp/format.properties
  /opt/kafka/bin/kafka-storage.sh format -t "$CLUSTER_ID" -c /tmp/format.properties \
    --add-scram "SCRAM-SHA-256=[name=admin,password=$ADMIN_PASSWORD]"
fi
exec /etc/kafka/docker/run
