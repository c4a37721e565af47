package dev.outbox.relay;

import dev.outbox.relay.cdc.CdcRelay;
import dev.outbox.relay.cdc.SlotMonitor;
import dev.outbox.relay.polling.PollingRelay;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.LifecycleProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which beans each {@code relay.mode} wires, without a server: the relay's own components and configurations,
 * nothing started (no lifecycle runs, so nothing connects).
 */
class RelayModeWiringTests {

    final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(RelayComponents.class);

    @Test
    void cdcStreamsWithTheSafetyNetAndNoPollingRelay() {
        runner.withPropertyValues("relay.mode=cdc").run(context -> {
            assertThat(context)
                    .hasSingleBean(CdcRelay.class)
                    .hasSingleBean(SlotMonitor.class)
                    .doesNotHaveBean(PollingRelay.class)
                    .doesNotHaveBean("autoFallback");
            assertThat(context).hasBean("safetyNet");
            assertThat(context.getBean(CdcRelay.class).isAutoStartup()).isTrue();
        });
    }

    /** The ahead-of-time context holds cdc's beans on the relay's one port: anything else builds its context at start. */
    @Test
    void theAheadOfTimeContextIsUsedOnlyForWhatItWasGeneratedFor() {
        assertThat(CdcOnlyAotContext.unlikeTheBuild(new MockEnvironment())).isNull();
        assertThat(CdcOnlyAotContext.unlikeTheBuild(new MockEnvironment().withProperty("relay.mode", "cdc")))
                .isNull();
        assertThat(CdcOnlyAotContext.unlikeTheBuild(new MockEnvironment().withProperty("relay.mode", "polling")))
                .isEqualTo("relay.mode=polling");
        assertThat(CdcOnlyAotContext.unlikeTheBuild(new MockEnvironment().withProperty("relay.mode", "auto")))
                .isEqualTo("relay.mode=auto");
        assertThat(CdcOnlyAotContext.unlikeTheBuild(
                        new MockEnvironment().withProperty("management.server.port", "9081")))
                .isEqualTo("management.server.port=9081");
    }

    @Test
    void theDefaultModeIsCdc() {
        runner.run(context -> assertThat(context).hasSingleBean(CdcRelay.class).doesNotHaveBean(PollingRelay.class));
    }

    @Test
    void pollingPollsAndNeitherStreamsNorSweeps() {
        runner.withPropertyValues("relay.mode=polling").run(context -> {
            assertThat(context)
                    .hasSingleBean(PollingRelay.class)
                    .doesNotHaveBean(CdcRelay.class)
                    .doesNotHaveBean(SlotMonitor.class)
                    .doesNotHaveBean("safetyNet")
                    .doesNotHaveBean("autoFallback");
            assertThat(context.getBean(PollingRelay.class).isAutoStartup()).isTrue();
        });
    }

    @Test
    void autoHasBothStoppedAndTheFallbackDecides() {
        runner.withPropertyValues("relay.mode=auto").run(context -> {
            assertThat(context)
                    .hasSingleBean(CdcRelay.class)
                    .hasSingleBean(PollingRelay.class)
                    .hasBean("autoFallback")
                    .hasBean("safetyNet");
            assertThat(context.getBean(CdcRelay.class).isAutoStartup()).isFalse();
            assertThat(context.getBean(PollingRelay.class).isAutoStartup()).isFalse();
        });
    }

    @Test
    void anUnknownModeOrALeaseShorterThanTwoDeliveryTimeoutsFailsTheStart() {
        runner.withPropertyValues("relay.mode=fast")
                .run(context -> assertThat(context).hasFailed());
        runner.withPropertyValues("relay.mode=polling", "relay.polling.lease=20s", "relay.kafka.delivery-timeout=15s")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .hasRootCauseMessage("relay.polling.lease (PT20S) must be at least twice "
                                + "relay.kafka.delivery-timeout (PT15S)"));
    }

    @Configuration(proxyBeanMethods = false)
    @ComponentScan(
            basePackageClasses = RelayApplication.class,
            excludeFilters = @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = RelayApplication.class))
    @ConfigurationPropertiesScan(basePackageClasses = RelayApplication.class)
    static class RelayComponents {

        @Bean
        DriverManagerDataSource dataSource() {
            return new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/none");
        }

        @Bean
        JdbcClient jdbcClient(DriverManagerDataSource dataSource) {
            return JdbcClient.create(dataSource);
        }

        @Bean
        DataSourceTransactionManager transactionManager(DriverManagerDataSource dataSource) {
            return new DataSourceTransactionManager(dataSource);
        }

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        /** Nothing starts: wiring only. */
        @Bean
        LifecycleProcessor lifecycleProcessor() {
            return new LifecycleProcessor() {
                @Override
                public void onRefresh() {}

                @Override
                public void onClose() {}

                @Override
                public void start() {}

                @Override
                public void stop() {}

                @Override
                public boolean isRunning() {
                    return false;
                }
            };
        }
    }
}
