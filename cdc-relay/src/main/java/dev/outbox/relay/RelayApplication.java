package dev.outbox.relay;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * Publishes the payments outbox to Kafka, at least once and in per-aggregate order. {@code relay.mode=cdc}
 * (default) tails the WAL with an embedded Debezium engine.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class RelayApplication {

    public static void main(String[] args) {
        builder().run(args);
    }

    /**
     * The relay reads {@code relay.yaml}, not {@code application.yaml}, so it can share a class path (tests,
     * the local run) with payments-api without either picking up the other's configuration. Its ahead-of-time context,
     * when enabled, is used in {@code relay.mode=cdc} only ({@link CdcOnlyAotContext}).
     */
    public static SpringApplicationBuilder builder() {
        return new SpringApplicationBuilder(RelayApplication.class)
                .properties("spring.config.name=relay")
                .listeners(new CdcOnlyAotContext());
    }
}
