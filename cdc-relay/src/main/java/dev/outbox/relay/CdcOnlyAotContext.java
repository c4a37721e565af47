package dev.outbox.relay;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aot.AotDetector;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.SpringProperties;
import org.springframework.core.env.Environment;

/**
 * The relay's ahead-of-time context (Spring AOT, {@code -Dspring.aot.enabled=true}, as {@code RelayJvm} and compose
 * start it) is generated at build time with {@code relay.yaml}'s defaults, and Spring evaluated its conditions then:
 * it holds the beans of {@code relay.mode=cdc} and none of polling's, and its operations endpoints on the relay's one
 * port. Started in another mode, or with a management port of its own, the relay turns AOT off before its context is
 * created and builds the context as it starts, as without the option: neither setting is frozen at build time.
 */
final class CdcOnlyAotContext implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

    private static final Logger log = LoggerFactory.getLogger(CdcOnlyAotContext.class);

    /** The mode the build generated the context for: the default of {@link RelayProperties#mode()}. */
    private static final String BUILT_FOR = RelayProperties.Mode.cdc.name();

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        if (!AotDetector.useGeneratedArtifacts()) {
            return;
        }
        String unlike = unlikeTheBuild(event.getEnvironment());
        if (unlike != null) {
            SpringProperties.setProperty(AotDetector.AOT_ENABLED, "false");
            log.info(
                    "{}: building the context as it starts (the one generated ahead of time is for cdc on one port)",
                    unlike);
        }
    }

    /** What of {@code environment} the ahead-of-time context was not generated for, or {@code null}. */
    static String unlikeTheBuild(Environment environment) {
        String mode = environment.getProperty("relay.mode", BUILT_FOR);
        if (!BUILT_FOR.equals(mode)) {
            return "relay.mode=" + mode;
        }
        String managementPort = environment.getProperty("management.server.port");
        return managementPort == null ? null : "management.server.port=" + managementPort;
    }
}
