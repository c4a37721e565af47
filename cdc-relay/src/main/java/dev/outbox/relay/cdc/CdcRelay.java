package dev.outbox.relay.cdc;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.outbox.relay.outbox.Outbox;
import dev.outbox.relay.publish.KafkaPublisher;
import dev.outbox.relay.publish.PublishProperties;
import dev.outbox.security.ErrorText;
import io.debezium.embedded.Connect;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Supervises the embedded Debezium engine: waits as a standby until it holds the slot's leadership lock,
 * runs the engine while it leads, restarts it after a failure, and stops it with {@code close()} when the lock
 * or the application goes away.
 */
public final class CdcRelay implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(CdcRelay.class);

    /** How long the connector keeps trying to take a slot another walsender still holds. */
    private static final Duration SLOT_WAIT =
            DebeziumSettings.SLOT_RETRY_DELAY.multipliedBy(DebeziumSettings.SLOT_RETRIES);

    public enum Role {
        STARTING,
        STANDBY,
        LEADER,
        STOPPED
    }

    private final CdcProperties cdc;
    private final DatabaseProperties db;
    private final PublishProperties kafka;
    private final KafkaPublisher publisher;
    private final Outbox outbox;
    private final StreamHorizons horizons;
    private final MeterRegistry meters;
    private final RelayLeadership leadership;
    private final AtomicReference<Role> role = new AtomicReference<>(Role.STOPPED);
    private final AtomicReference<String> lastError = new AtomicReference<>();
    private final Counter rowsLeftToSafetyNet;

    private volatile boolean running;
    /** When this instance took the slot's leadership, and when its engine began streaming; null when not. */
    private volatile Instant leadingSince;

    private volatile Instant streamingSince;
    private Thread supervisor;
    private ExecutorService engineThread;
    private DebeziumEngine<ChangeEvent<SourceRecord, SourceRecord>> engine;
    private volatile OutboxChangeConsumer consumer;
    private HorizonEmitter emitter;
    /** What the last stream of this process had Kafka acknowledge beyond its last stored horizon: the next skips it. */
    private Set<UUID> sentBefore = Set.of();

    private Future<?> engineRun;
    /** When this relay started. */
    private volatile Instant startedAt;
    /** When a stream of this leadership before the current one last stored a horizon. */
    private volatile Instant storedBefore;
    /** Whether an engine (or its start) failed since this instance took the lead. */
    private volatile boolean failedWhileLeading;

    private volatile RelayLeadership.Lease lease;
    private final boolean autoStartup;
    private final Duration safetyNetGrace;

    CdcRelay(
            CdcProperties cdc,
            DatabaseProperties db,
            PublishProperties kafka,
            KafkaPublisher publisher,
            Outbox outbox,
            StreamHorizons horizons,
            Duration safetyNetGrace,
            MeterRegistry meters,
            boolean autoStartup) {
        this.safetyNetGrace = safetyNetGrace;
        this.autoStartup = autoStartup;
        this.cdc = cdc;
        this.db = db;
        this.kafka = kafka;
        this.publisher = publisher;
        this.outbox = outbox;
        this.horizons = horizons;
        this.meters = meters;
        this.rowsLeftToSafetyNet = Counter.builder("outbox_cdc_rows_left_to_safety_net")
                .description("rows a new slot may have missed, left to the safety net when its horizon began")
                .register(meters);
        this.leadership = new RelayLeadership(db, cdc.slotName());
    }

    public Role role() {
        return role.get();
    }

    boolean streaming() {
        return streamingSince != null;
    }

    /**
     * Whether this instance's CDC stream is starting or moving, so that the rows its slot streams and its horizon has
     * not passed yet are its own to deliver: a safety net that swept them beside it would publish them a second time,
     * however far behind the stream is. True while the relay starts (before it knows whether it leads), and while it
     * leads, until twice {@code grace} has passed since the stream last moved: since this instance took the lead from
     * another relay (or from no one), its engine began streaming, or its stream last stored a horizon. Nothing else
     * re-arms it: not an engine started again that has not begun streaming, not the leadership lock taken again after a
     * failure, not acknowledgements without a stored horizon. Until an engine of this leadership has failed, the wait
     * is at least the connector's own wait for a slot another walsender still holds (60 s): a first start may take
     * that long. A stream that does not move (an engine that fails or never starts, a stream stuck) leaves every row
     * older than the grace to the net again.
     */
    public boolean delivering(Duration grace) {
        Role r = role.get();
        Instant since;
        if (r == Role.STARTING) {
            since = startedAt;
        } else if (r == Role.LEADER) {
            OutboxChangeConsumer stream = consumer;
            since = latest(leadingSince, streamingSince, storedBefore, stream == null ? null : stream.lastStored());
        } else {
            return false;
        }
        Duration patience = grace.multipliedBy(2);
        if (!failedWhileLeading && patience.compareTo(SLOT_WAIT) < 0) {
            patience = SLOT_WAIT;
        }
        return since != null && since.plus(patience).isAfter(Instant.now());
    }

    /** The slot this instance streams, or would as its leader. */
    public String slotName() {
        return cdc.slotName();
    }

    private static Instant latest(Instant... times) {
        Instant latest = null;
        for (Instant t : times) {
            if (t != null && (latest == null || t.isAfter(latest))) {
                latest = t;
            }
        }
        return latest;
    }

    /** The server this instance leads on (the primary when the lock was taken), or {@code null}. */
    String server() {
        RelayLeadership.Lease l = lease;
        return l == null ? null : l.server().toString();
    }

    String lastError() {
        return lastError.get();
    }

    @Override
    public synchronized void start() {
        running = true;
        startedAt = Instant.now();
        role.set(Role.STARTING);
        engineThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "debezium-engine"));
        supervisor = new Thread(this::supervise, "cdc-relay-supervisor");
        supervisor.start();
    }

    @Override
    public void stop() {
        running = false;
        Thread s = supervisor;
        if (s != null) {
            s.interrupt();
            try {
                s.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        stopEngine();
        releaseLease();
        engineThread.shutdownNow();
        role.set(Role.STOPPED);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    private void supervise() {
        while (running) {
            try {
                if (lease == null) {
                    lease = leadership.tryAcquire();
                    if (lease == null) {
                        if (role.getAndSet(Role.STANDBY) != Role.STANDBY) {
                            log.info("slot {} is led by another relay; waiting as standby", cdc.slotName());
                        }
                        Thread.sleep(cdc.standbyPoll().toMillis());
                        continue;
                    }
                    if (role.getAndSet(Role.LEADER) != Role.LEADER) {
                        // taken from another relay, or from no one; taking it again after a failure of this one's own
                        // is no progress (the safety net's patience runs on)
                        leadingSince = Instant.now();
                        storedBefore = null;
                        failedWhileLeading = false;
                    }
                    // the previous leader is gone (its session released the lock); a walsender of its may still hold
                    // the slot until PostgreSQL notices, so end it rather than wait for wal_sender_timeout
                    int ended = lease.endStaleWalsender(cdc.slotName());
                    log.info(
                            "leading slot {} on {}{}; starting the Debezium engine",
                            cdc.slotName(),
                            lease.server(),
                            ended > 0 ? " (ended the previous leader's walsender)" : "");
                }
                if (!lease.isValid()) {
                    log.warn("lost the leadership connection for slot {}; stopping the engine", cdc.slotName());
                    stopEngine();
                    // the engine did not fail: the next one, wherever the lock is taken next, starts without a backoff
                    engineRun = null;
                    releaseLease();
                    role.set(Role.STANDBY);
                    leadingSince = null;
                    continue;
                }
                if (engineRun == null || engineRun.isDone()) {
                    if (engineRun != null) {
                        Thread.sleep(cdc.restartBackoff().toMillis());
                    }
                    startEngine();
                }
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                failedWhileLeading = true;
                lastError.set(ErrorText.sanitize(e));
                log.warn("CDC supervisor: {}", ErrorText.sanitize(e));
                // no lease: no primary reachable (down, or a standby not yet promoted); try again as a standby would
                Duration pause = lease == null ? cdc.standbyPoll() : cdc.restartBackoff();
                releaseLease();
                try {
                    Thread.sleep(pause.toMillis());
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    private void startEngine() {
        closeEmitter();
        // a stream that failed: what its producer still delivers is remembered, and the new stream skips it
        closeConsumer();
        // the slot exists, and its stored horizon is of it (or begins again) before anything streams
        StreamHorizons.Prepared prepared = horizons.prepare(cdc.slotName());
        if (prepared.lostDropped()) {
            log.warn(
                    "slot {} was lost (PostgreSQL removed WAL it needed: max_slot_wal_keep_size was passed while no"
                            + " relay streamed); dropped it to create it again",
                    cdc.slotName());
        }
        if (prepared.slotCreated()) {
            log.info("created slot {}", cdc.slotName());
        }
        if (prepared.begun()) {
            rowsLeftToSafetyNet.increment(prepared.leftToSafetyNet());
            log.info(
                    "the horizon of slot {} begins; {} rows it may have missed are left to the safety net",
                    cdc.slotName(),
                    prepared.leftToSafetyNet());
        }
        consumer = new OutboxChangeConsumer(
                publisher,
                outbox,
                horizons,
                cdc.slotName(),
                safetyNetGrace.dividedBy(2),
                Math.max(1, cdc.maxInFlight()),
                sentBefore,
                meters);
        engine = DebeziumEngine.create(Connect.class)
                // the engine takes one host: the primary this instance holds the lock on, found before every start
                .using(DebeziumSettings.of(cdc, db.on(lease.server()), kafka))
                .using((success, message, error) -> {
                    streamingSince = null;
                    if (!success && running) {
                        failedWhileLeading = true;
                        lastError.set(error == null ? "engine stopped" : ErrorText.sanitize(error));
                        log.warn("Debezium engine stopped: {}", error == null ? message : ErrorText.sanitize(error));
                    }
                })
                .using(new DebeziumEngine.ConnectorCallback() {
                    @Override
                    public void taskStarted() {
                        streamingSince = Instant.now();
                        lastError.set(null);
                    }

                    @Override
                    public void taskStopped() {
                        streamingSince = null;
                    }
                })
                .notifying(consumer)
                .build();
        engineRun = engineThread.submit(engine);
        emitter =
                new HorizonEmitter(db.on(lease.server()), cdc.slotName(), cdc.horizonInterval(), consumer.delivered());
    }

    private void stopEngine() {
        DebeziumEngine<?> e = engine;
        engine = null;
        closeEmitter();
        OutboxChangeConsumer c = consumer;
        if (c != null) {
            // what was sent gets acknowledged, and a stored horizon's offset reaches the engine before it stops
            c.drain(kafka.deliveryTimeout());
        }
        if (e != null) {
            try {
                e.close();
            } catch (IOException ex) {
                log.warn("closing the engine: {}", ErrorText.sanitize(ex));
            } catch (IllegalStateException ex) {
                // it stopped by itself first (its database went away, or delivery failed): nothing left to close
                log.debug("closing the engine: {}", ErrorText.sanitize(ex));
            }
        }
        Future<?> run = engineRun;
        if (run != null) {
            try {
                run.get(30, TimeUnit.SECONDS);
            } catch (Exception ignored) {
                // the completion callback already reported how it ended
            }
        }
        streamingSince = null;
        closeConsumer();
    }

    private void closeEmitter() {
        if (emitter != null) {
            emitter.close();
            emitter = null;
        }
    }

    /** Completes what the stream sent (for at most the delivery timeout), remembers what it had acknowledged, ends it. */
    private void closeConsumer() {
        if (consumer != null) {
            consumer.drain(kafka.deliveryTimeout());
            sentBefore = consumer.acknowledgedSinceHorizon();
            storedBefore = latest(storedBefore, consumer.lastStored());
            consumer.close();
            consumer = null;
        }
    }

    private void releaseLease() {
        if (lease != null) {
            lease.close();
            lease = null;
        }
    }

    @Override
    public boolean isAutoStartup() {
        return autoStartup;
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 100;
    }
}
