package dev.outbox.payments.payment;

import java.math.BigDecimal;
import java.util.Currency;

import dev.outbox.payments.web.ApiException;

/** An amount validated against its ISO 4217 currency: positive, bounded, and no finer than the currency's minor unit. */
record Money(BigDecimal amount, Currency currency) {

    static final BigDecimal MAX = new BigDecimal("1000000000");

    static Currency currency(String code) {
        if (code == null || !code.matches("[A-Z]{3}")) {
            throw ApiException.invalid("currency must be an ISO 4217 code such as EUR.");
        }
        Currency currency;
        try {
            currency = Currency.getInstance(code);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalid("Unknown currency " + code + ".");
        }
        if (currency.getDefaultFractionDigits() < 0) {
            throw ApiException.invalid("Currency " + code + " is not a payment currency.");
        }
        return currency;
    }

    static Money of(BigDecimal amount, Currency currency) {
        if (amount == null) {
            throw ApiException.invalid("amount is required.");
        }
        if (amount.signum() <= 0) {
            throw ApiException.invalid("amount must be positive.");
        }
        if (amount.compareTo(MAX) > 0) {
            throw ApiException.invalid("amount must not exceed " + MAX.toPlainString() + ".");
        }
        int digits = currency.getDefaultFractionDigits();
        if (amount.stripTrailingZeros().scale() > digits) {
            throw ApiException.invalid("amount has more decimals than " + currency.getCurrencyCode() + " allows ("
                    + digits + ").");
        }
        return new Money(amount.setScale(digits), currency);
    }

    String plain() {
        return amount.toPlainString();
    }

    String code() {
        return currency.getCurrencyCode();
    }
}
