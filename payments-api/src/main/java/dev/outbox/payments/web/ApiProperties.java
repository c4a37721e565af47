package dev.outbox.payments.web;

import java.util.Set;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * HTTP edge settings.
 *
 * @param maxBodyBytes largest request body accepted; larger ones get 413 before any parsing
 * @param apiKeys      {@code client=sha256hex,...}: the clients and the SHA-256 of their API keys
 * @param currencies   the ISO 4217 codes payments may be made in (Java also knows withdrawn ones such as DEM)
 */
@ConfigurationProperties("payments")
public record ApiProperties(
        @DefaultValue("16384") int maxBodyBytes,
        @DefaultValue("") String apiKeys,

        @DefaultValue({"EUR", "USD", "GBP", "CHF", "JPY", "SEK", "NOK", "DKK", "PLN", "CZK", "CAD", "AUD", "BHD", "KWD"
        })
        Set<String> currencies) {}
