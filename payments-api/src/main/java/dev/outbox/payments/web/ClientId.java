package dev.outbox.payments.web;

/** The request attribute holding the authenticated client's id. */
public final class ClientId {

    public static final String ATTRIBUTE = "payments.clientId";

    private ClientId() {
    }
}
