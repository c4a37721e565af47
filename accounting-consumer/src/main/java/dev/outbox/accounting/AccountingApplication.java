package dev.outbox.accounting;

import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The accounting consumer: one ledger effect per payment event, however often Kafka delivers it. The inbox
 * marker and the ledger entry commit in one transaction, and the Kafka offset only after that commit.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
public class AccountingApplication {

    /** The service, or the operators' command line when the arguments are one of its commands. */
    public static void main(String[] args) {
        if (OperatorCli.isCommand(args)) {
            OperatorCli.main(args);
            return;
        }
        builder().run(args);
    }

    /** Reads {@code accounting.yaml}, so it can share a class path with the other services. */
    public static SpringApplicationBuilder builder() {
        return new SpringApplicationBuilder(AccountingApplication.class).properties("spring.config.name=accounting");
    }
}
