package dev.outbox.accounting.reconcile;

import java.time.Duration;
import java.util.Map;

import dev.outbox.accounting.ScramLogin;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The reconcile job ({@link ReconcileJob}): the pipeline's invariant checked continuously, with credentials of its own
 * that can only read.
 *
 * @param enabled            whether this consumer process runs the job (one instance at a time reconciles: the
 *                           holder of an advisory lock on the accounting database)
 * @param window             how often a window is judged, and its length in commit time
 * @param objective          the pipeline's latency objective: an event committed this long ago must be applied or
 *                           accounted for; set it above the safety net's grace + a lease + the consumer's retries
 * @param chunkSize          outbox rows judged per statement (the job's memory and per-statement load)
 * @param maxProblems        problems and balance mismatches listed at most (every one is counted)
 * @param maxScan            topic records read at most per partition when looking up events not applied
 * @param scanTimeout        time a topic look-up may take
 * @param paymentsUrl        JDBC URL of the payments database
 * @param paymentsUsername   the job's role there: a member of payments_reconciler, which may only read
 * @param paymentsPassword   its password
 * @param accountingUsername the job's role on the accounting database (the consumer's URL): a member of
 *                           accounting_reconciler, which may only read
 * @param accountingPassword its password
 * @param kafkaUsername      the job's Kafka principal (SASL only): may read the events topic and its dead letters
 * @param kafkaPassword      its password
 */
@ConfigurationProperties("reconcile")
public record ReconcileProperties(
        @DefaultValue("false") boolean enabled,
        @DefaultValue("1m") Duration window,
        @DefaultValue("5m") Duration objective,
        @DefaultValue("1000") int chunkSize,
        @DefaultValue("1000") int maxProblems,
        @DefaultValue("100000") int maxScan,
        @DefaultValue("30s") Duration scanTimeout,

        @DefaultValue("jdbc:postgresql://127.0.0.1:5432/payments")
        String paymentsUrl,

        @DefaultValue("") String paymentsUsername,
        @DefaultValue("") String paymentsPassword,
        @DefaultValue("") String accountingUsername,
        @DefaultValue("") String accountingPassword,
        @DefaultValue("") String kafkaUsername,
        @DefaultValue("") String kafkaPassword) {

    /** Refuses settings under which the job would judge events the pipeline may still deliver. */
    public ReconcileProperties {
        ScramLogin.checkUsername("reconcile.kafka-username", kafkaUsername);
        if (enabled && objective.compareTo(window) <= 0) {
            throw new IllegalArgumentException(
                    "reconcile.objective (" + objective + ") must exceed reconcile.window (" + window + ")");
        }
    }

    /** The consumer's Kafka client settings as the job's principal: its own SCRAM credentials on a SASL broker. */
    Map<String, Object> asReconcilePrincipal(Map<String, Object> base) {
        Map<String, Object> config = ScramLogin.as(base, kafkaUsername, kafkaPassword);
        config.remove("group.id");
        config.put("client.id", "accounting-reconcile");
        return config;
    }

    @Override
    public String toString() {
        return "ReconcileProperties[enabled=" + enabled + ", window=" + window + ", objective=" + objective
                + ", paymentsUrl=" + paymentsUrl + ", paymentsUsername=" + paymentsUsername + ", accountingUsername="
                + accountingUsername + ", kafkaUsername=" + kafkaUsername + "]";
    }
}
