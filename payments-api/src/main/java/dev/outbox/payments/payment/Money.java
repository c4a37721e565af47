package dev.outbox.payments.payment;

import java.math.BigDecimal;
import java.util.Currency;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An amount validated against its ISO 4217 currency: written as a plain decimal string (digits, at most one
 * point; no sign, exponent, spaces or leading zeros), positive, bounded, and with no more decimals than the
 * currency's minor unit. Money never travels as a binary float, on the way in or out.
 */
record Money(BigDecimal amount, Currency currency) {

    static final BigDecimal MAX = new BigDecimal("1000000000");

    /** The one spelling of an amount, as the OpenAPI document states it too. */
    static final String DECIMAL_SYNTAX = "(0|[1-9][0-9]{0,9})(?:\\.([0-9]{1,9}))?";

    private static final Pattern DECIMAL = Pattern.compile(DECIMAL_SYNTAX);
    private static final Pattern CODE = Pattern.compile("[A-Z]{3}");

    /** @param accepted the codes this service takes payments in */
    static Currency currency(String code, Set<String> accepted) {
        if (code == null || !CODE.matcher(code).matches()) {
            throw new InvalidInput("currency must be an ISO 4217 code such as EUR.");
        }
        if (!accepted.contains(code)) {
            throw new InvalidInput("Payments are not taken in " + code + ".");
        }
        Currency currency;
        try {
            currency = Currency.getInstance(code);
        } catch (IllegalArgumentException e) {
            throw new InvalidInput("Unknown currency " + code + ".");
        }
        if (currency.getDefaultFractionDigits() < 0) {
            throw new InvalidInput("Currency " + code + " is not a payment currency.");
        }
        return currency;
    }

    static Money parse(String text, Currency currency) {
        if (text == null) {
            throw new InvalidInput("amount is required.");
        }
        Matcher decimal = DECIMAL.matcher(text);
        if (!decimal.matches()) {
            throw new InvalidInput("amount must be a decimal string such as \"12.50\": digits and at most one "
                    + "point, without sign, exponent, spaces or leading zeros.");
        }
        int digits = currency.getDefaultFractionDigits();
        int decimals = decimal.group(2) == null ? 0 : decimal.group(2).length();
        if (decimals > digits) {
            throw new InvalidInput(
                    "amount has more decimals than " + currency.getCurrencyCode() + " allows (" + digits + ").");
        }
        BigDecimal amount = new BigDecimal(text);
        if (amount.signum() <= 0) {
            throw new InvalidInput("amount must be positive.");
        }
        if (amount.compareTo(MAX) > 0) {
            throw new InvalidInput("amount must not exceed " + MAX.toPlainString() + ".");
        }
        return new Money(amount.setScale(digits), currency);
    }

    /** The amount at the currency's scale, as a plain decimal string: the one spelling stored and sent. */
    String plain() {
        return amount.toPlainString();
    }

    String code() {
        return currency.getCurrencyCode();
    }
}
