package dev.outbox.payments.payment;

import java.util.Currency;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The API's input rules, without a server: amounts, currencies, field types and free text. */
class PaymentRequestsTests {

    static final JsonMapper JSON = JsonMapper.builder().build();
    static final Currency EUR = Currency.getInstance("EUR");
    static final java.util.Set<String> ACCEPTED = java.util.Set.of("EUR", "USD", "JPY", "BHD");

    @ParameterizedTest
    @ValueSource(
            strings = {
                "1E+1",
                "1e1",
                "+1.00",
                "-1.00",
                " 1.00",
                "1.00 ",
                "01.00",
                "1.",
                ".5",
                "1,00",
                "1.0.0",
                "0x10",
                "NaN",
                "Infinity",
                "１.００",
                "1_000",
                ""
            })
    void refusesEveryAmountSpellingButAPlainDecimalString(String amount) {
        assertThatThrownBy(() -> Money.parse(amount, EUR))
                .isInstanceOf(InvalidInput.class)
                .hasMessageContaining("amount");
    }

    @Test
    void acceptsPlainDecimalsWithinTheCurrencysScale() {
        assertThat(Money.parse("12.5", EUR).plain()).isEqualTo("12.50");
        assertThat(Money.parse("10", EUR).plain()).isEqualTo("10.00");
        assertThat(Money.parse("0.01", EUR).plain()).isEqualTo("0.01");
        assertThat(Money.parse("1500", Currency.getInstance("JPY")).plain()).isEqualTo("1500");
        assertThat(Money.parse("1.234", Currency.getInstance("BHD")).plain()).isEqualTo("1.234");
        assertThat(Money.parse("1000000000", EUR).plain()).isEqualTo("1000000000.00");
    }

    @Test
    void refusesMoreDecimalsThanTheCurrencyHasEvenWhenTheyAreZeros() {
        assertThatThrownBy(() -> Money.parse("10.00", Currency.getInstance("JPY")))
                .hasMessageContaining("JPY");
        assertThatThrownBy(() -> Money.parse("1.005", EUR)).hasMessageContaining("EUR allows (2)");
        assertThatThrownBy(() -> Money.parse("0.00", EUR)).hasMessageContaining("positive");
        assertThatThrownBy(() -> Money.parse("1000000000.01", EUR)).hasMessageContaining("exceed");
    }

    @ParameterizedTest
    @ValueSource(strings = {"eur", "EURO", "ABC", "XAU", " EUR", "DEM", "BYR", "GBP"})
    void refusesWhatIsNotAPaymentCurrencyHere(String code) {
        assertThatThrownBy(() -> Money.currency(code, ACCEPTED)).isInstanceOf(InvalidInput.class);
        assertThat(Money.currency("EUR", ACCEPTED)).isEqualTo(EUR);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"amount\":10,\"currency\":\"EUR\"}",
                "{\"amount\":10.5,\"currency\":\"EUR\"}",
                "{\"amount\":\"10.00\",\"currency\":\"EUR\",\"description\":5}",
                "{\"amount\":\"10.00\",\"currency\":\"EUR\",\"description\":true}",
                "{\"amount\":\"10.00\",\"currency\":[\"EUR\"]}",
                "{\"amount\":{\"value\":\"10.00\"},\"currency\":\"EUR\"}",
                "{\"amount\":\"10.00\",\"currency\":\"EUR\",\"status\":\"REFUNDED\"}"
            })
    void refusesNonStringsAndUnknownFields(String body) {
        assertThatThrownBy(() -> PaymentRequests.payment(object(body), ACCEPTED))
                .isInstanceOf(InvalidInput.class);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "\u202Eevil",
                "zero\u200Bwidth",
                "bom\uFEFF",
                "line\u2028sep",
                "tab\there",
                "nul\u0000",
                "lone \uD800 surrogate",
                "private \uE000 use",
                "unassigned \u0378"
            })
    void refusesControlFormatAndInvisibleCharactersInTheDescription(String description) {
        ObjectNode body = object("{\"amount\":\"1.00\",\"currency\":\"EUR\"}");
        body.put("description", description);
        assertThatThrownBy(() -> PaymentRequests.payment(body, ACCEPTED))
                .isInstanceOf(InvalidInput.class)
                .hasMessageContaining("description");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "   ",
                " padded",
                "padded ",
                "\u3164",
                "\u2800",
                "\u0301\u0301\u0301",
                "a\u0301\u0301\u0301",
                "\u3000"
            })
    void refusesDescriptionsThatShowNothingOrPileUpMarks(String description) {
        ObjectNode body = object("{\"amount\":\"1.00\",\"currency\":\"EUR\"}");
        body.put("description", description);
        assertThatThrownBy(() -> PaymentRequests.payment(body, ACCEPTED))
                .isInstanceOf(InvalidInput.class)
                .hasMessageContaining("description");
    }

    @Test
    void keepsPrintableTextOfAnyScriptAsWritten() {
        ObjectNode body = object("{\"amount\":\"1.00\",\"currency\":\"EUR\"}");
        body.put("description", "Café №42 — 支払い 💶");
        assertThat(PaymentRequests.payment(body, ACCEPTED).description()).isEqualTo("Café №42 — 支払い 💶");
        body.put("description", "e\u0301te\u0301 ❤\uFE0F");
        assertThat(PaymentRequests.payment(body, ACCEPTED).description()).isEqualTo("e\u0301te\u0301 ❤\uFE0F");
        body.put("description", "x".repeat(141));
        assertThatThrownBy(() -> PaymentRequests.payment(body, ACCEPTED)).hasMessageContaining("140");
    }

    @Test
    void aRefundTakesOnlyAnAmountString() {
        assertThat(PaymentRequests.refundAmount(object("{\"amount\":\"5.00\"}")))
                .isEqualTo("5.00");
        assertThatThrownBy(() -> PaymentRequests.refundAmount(object("{\"amount\":5}")))
                .isInstanceOf(InvalidInput.class);
        assertThatThrownBy(() -> PaymentRequests.refundAmount(object("{}"))).hasMessageContaining("required");
        assertThatThrownBy(() -> PaymentRequests.refundAmount(object("{\"amount\":\"5.00\",\"currency\":\"USD\"}")))
                .hasMessageContaining("Unknown field");
    }

    @Test
    void theBoundsHoldExactlyAtTheirLimits() {
        ObjectNode body = object("{\"amount\":\"1.00\",\"currency\":\"EUR\"}");
        assertThat(PaymentRequests.payment(body, ACCEPTED).description()).isNull();
        body.put("description", "💶".repeat(140));
        assertThat(PaymentRequests.payment(body, ACCEPTED).description()).hasSize(280);
        body.put("description", "a\u0301\u0301");
        assertThat(PaymentRequests.payment(body, ACCEPTED).description()).isEqualTo("a\u0301\u0301");
        body.put("description", "\u115F");
        assertThatThrownBy(() -> PaymentRequests.payment(body, ACCEPTED)).hasMessageContaining("visible");
        assertThat(Money.currency("JPY", ACCEPTED).getDefaultFractionDigits()).isZero();
        assertThat(Money.parse("1", Currency.getInstance("JPY")).code()).isEqualTo("JPY");
    }

    @Test
    void anUnknownFieldIsNamedOnlyAsAShortAsciiFragment() {
        String forty = "f".repeat(39) + "\u202E";
        assertThatThrownBy(() -> PaymentRequests.refundAmount(object("{\"" + forty + "\":1}")))
                .hasMessage("Unknown field '" + "f".repeat(39) + "?'.");
        assertThatThrownBy(() -> PaymentRequests.refundAmount(object("{\"" + forty + "x\":1}")))
                .hasMessage("Unknown field '" + "f".repeat(39) + "?...'.");
        assertThat(FreeText.fragment(null)).isEmpty();
    }

    private static ObjectNode object(String json) {
        return (ObjectNode) JSON.readTree(json);
    }
}
