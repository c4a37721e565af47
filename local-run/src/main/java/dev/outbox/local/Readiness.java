package dev.outbox.local;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Whether a service started on this machine is ready: its readiness path answers 200 on 127.0.0.1. */
public final class Readiness {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private Readiness() {}

    /** @param path e.g. {@code /readyz} or {@code /actuator/health} */
    public static boolean answers(int port, String path) {
        try {
            return HTTP.send(
                                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                            .timeout(Duration.ofSeconds(2))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode()
                    == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
