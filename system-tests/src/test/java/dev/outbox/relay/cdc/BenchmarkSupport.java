package dev.outbox.relay.cdc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;

import dev.outbox.contract.TimeOrderedIds;
import dev.outbox.local.Kafka;
import dev.outbox.local.LocalCredentials;
import dev.outbox.local.Postgres;
import dev.outbox.payments.outbox.OutboxEvent;
import dev.outbox.relay.OutboxRows;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.awaitility.Awaitility.await;

/** What the relay benchmarks share: the backlog, waiting for the topic and the slots, and the processes they start. */
final class BenchmarkSupport {

    private BenchmarkSupport() {}

    /** 80% PaymentCreated, 20% PaymentRefunded, as payments-api writes them. */
    static List<OutboxEvent> backlog(int events) {
        List<OutboxEvent> backlog = new ArrayList<>(events);
        int refunded = events / 5;
        for (int i = 0; i < events - refunded; i++) {
            UUID payment = TimeOrderedIds.next();
            backlog.add(OutboxRows.event(payment, 1, OutboxRows.payload(payment, 1, "10.00")));
            if (i < refunded) {
                backlog.add(OutboxRows.event(payment, 2, OutboxRows.payload(payment, 2, "2.50")));
            }
        }
        return backlog;
    }

    /** A {@link #backlog} written through payments-api's OutboxWriter in one transaction; returns its size. */
    static long preload(Postgres pg, String database, int events) {
        DataSource ds = new DriverManagerDataSource(
                pg.jdbcUrl(database), LocalCredentials.POSTGRES.user(), LocalCredentials.POSTGRES.password());
        List<OutboxEvent> backlog = backlog(events);
        OutboxRows.write(ds, backlog);
        return backlog.size();
    }

    /** Until the end offsets of the topic's three partitions add up to {@code expected}. */
    static void awaitOnTopic(Kafka kafka, String topic, long expected) {
        try (Admin admin = Admin.create(kafka.adminClientProperties())) {
            List<TopicPartition> partitions =
                    List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
            Map<TopicPartition, OffsetSpec> latest =
                    partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
            await().atMost(Duration.ofMinutes(10))
                    .pollInterval(Duration.ofMillis(20))
                    .until(() -> admin.listOffsets(latest).all().get().values().stream()
                                    .mapToLong(o -> o.offset())
                                    .sum()
                            >= expected);
        }
    }

    static void awaitSlotActive(Postgres pg, String database, String slot) {
        awaitSlot(pg, database, slot, true, Duration.ofSeconds(120));
    }

    /** Waits until no walsender holds the slot any more, then drops it. */
    static void dropSlot(Postgres pg, String database, String slot) {
        awaitSlot(pg, database, slot, false, Duration.ofSeconds(60));
        sql(pg, database, "SELECT pg_drop_replication_slot('" + slot + "')::text");
    }

    /** Waits until a walsender holds the slot ({@code active}) or none does. */
    private static void awaitSlot(Postgres pg, String database, String slot, boolean active, Duration atMost) {
        await().atMost(atMost)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> String.valueOf(active)
                        .equals(sql(
                                pg,
                                database,
                                "SELECT active::text FROM pg_replication_slots WHERE slot_name = '" + slot + "'")));
    }

    /** The first column of the first row, or {@code null}. */
    static String sql(Postgres pg, String database, String query) {
        try (Connection c = pg.connect(database);
                PreparedStatement s = c.prepareStatement(query);
                ResultSet rs = s.executeQuery()) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** pg_recvlogical on the PATH, when installed (Debian: postgresql-client). */
    static Optional<Path> pgRecvlogical() {
        return Stream.of(System.getenv("PATH").split(":"))
                .map(p -> Path.of(p, "pg_recvlogical"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** pg_recvlogical decoding a slot with pgoutput for one publication up to {@code endLsn}, output discarded. */
    static ProcessBuilder recvlogical(
            Path binary, Postgres pg, String database, String slot, String publication, String endLsn, Path log) {
        ProcessBuilder recvlogical = new ProcessBuilder(
                        binary.toString(),
                        "-d",
                        "host=" + pg.host() + " port=" + pg.port() + " dbname=" + database + " user="
                                + LocalCredentials.POSTGRES.user(),
                        "--slot",
                        slot,
                        "--start",
                        "--endpos",
                        endLsn,
                        "-o",
                        "proto_version=1",
                        "-o",
                        "publication_names=" + publication,
                        "--no-loop",
                        "-f",
                        "/dev/null")
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        recvlogical.environment().put("PGPASSWORD", LocalCredentials.POSTGRES.password()); // never on the command line
        return recvlogical;
    }

    /** SIGTERM a process this test started, and wait until it is gone. */
    static void terminate(long pid) {
        ProcessHandle.of(pid).ifPresent(p -> {
            p.destroy();
            try {
                p.onExit().get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        });
    }
}
