package dev.outbox.relay.polling;

import dev.outbox.relay.publish.PublishProperties;

/**
 * Batch sizing against the lease: a publish round stops handing records to the producer after half the delivery
 * timeout and stops waiting for acknowledgements at the full timeout (plus at most one blocked send of a quarter
 * of it), so a lease of at least twice that timeout is never outlived by its own batch.
 */
final class LeasesFitDeliveryTimeout {

    private LeasesFitDeliveryTimeout() {}

    static void check(PollingProperties settings, PublishProperties publish) {
        if (settings.lease().compareTo(publish.deliveryTimeout().multipliedBy(2)) < 0) {
            throw new IllegalStateException("relay.polling.lease (" + settings.lease() + ") must be at least twice "
                    + "relay.kafka.delivery-timeout (" + publish.deliveryTimeout() + ")");
        }
    }
}
