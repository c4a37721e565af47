package dev.outbox.relay;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/** Refuses to start with a relay mode this build does not have, rather than run without publishing anything. */
@Component
final class RelayModeCheck implements InitializingBean {

    private final String mode;

    RelayModeCheck(@Value("${relay.mode:cdc}") String mode) {
        this.mode = mode;
    }

    @Override
    public void afterPropertiesSet() {
        if (!"cdc".equals(mode)) {
            throw new IllegalStateException("relay.mode=" + mode + " is not available; use relay.mode=cdc");
        }
    }
}
