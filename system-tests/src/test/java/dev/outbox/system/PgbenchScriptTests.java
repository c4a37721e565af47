package dev.outbox.system;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import javax.sql.DataSource;

import dev.outbox.local.LocalCredentials;
import dev.outbox.payments.PaymentsApplication;
import dev.outbox.relay.OutboxRows;
import dev.outbox.testing.SharedInfra;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmark's raw baseline, {@code bench/post-payment.pgbench}, is the SQL payments-api really sends for one
 * {@code POST /payments}, in the same round trips: the API runs here on a real PostgreSQL with its DataSource wrapped
 * so that every statement a request thread prepares, and each transaction's begin and commit, is recorded. The
 * script must send the same statements, parameters aside, grouped the same way: what the API sends in one round trip
 * (a begin with the statement that follows it, a multi-statement command) is one pipeline in the script. A change to
 * any of the API's statements, one more or one fewer, or another grouping fails this test until the script follows.
 */
class PgbenchScriptTests {

    /** A named parameter (pgbench's or Spring's), not a {@code ::} cast. */
    private static final Pattern PARAMETER = Pattern.compile("(?<![:\\w]):[A-Za-z_][A-Za-z0-9_]*");

    static final List<String> RECORDED = new CopyOnWriteArrayList<>();

    @Test
    void theScriptSendsTheStatementsTheApiSendsForOnePaymentInTheSameRoundTrips() throws Exception {
        List<String> script = roundTrips();
        List<String> api = apiRoundTripsForOnePayment();

        assertThat(script.get(0))
                .as("the script's first round trip mints the values")
                .contains("gen_random_uuid()");
        assertThat(script.subList(1, script.size())).isEqualTo(api);
        assertThat(api.get(0)).startsWith("BEGIN; WITH lock_wait AS (SELECT set_config('lock_timeout', ?, true))");
        assertThat(api).as("round trips of the API").hasSize(3).last().isEqualTo("COMMIT");
    }

    /**
     * The script's round trips: a pipeline's statements joined by {@code ; }, any other statement alone; comments
     * dropped, parameters written as ?, whitespace collapsed.
     */
    static List<String> roundTrips() throws IOException {
        String text;
        try (InputStream in = PgbenchScriptTests.class.getResourceAsStream("/bench/post-payment.pgbench")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> trips = new ArrayList<>();
        List<String> pipeline = null;
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (l.startsWith("--") || l.isEmpty()) {
                continue;
            }
            if (l.equals("\\startpipeline")) {
                pipeline = new ArrayList<>();
                continue;
            }
            if (l.equals("\\endpipeline")) {
                trips.add(String.join("; ", pipeline));
                pipeline = null;
                continue;
            }
            boolean ends = l.endsWith(";") || l.endsWith("\\gset");
            current.append(' ').append(l.replaceAll("(;|\\\\gset)$", ""));
            if (ends) {
                String statement = normalized(current.toString());
                current.setLength(0);
                if (pipeline != null) {
                    pipeline.add(statement);
                } else {
                    trips.add(statement);
                }
            }
        }
        assertThat(current.toString().strip())
                .as("text after the last statement")
                .isEmpty();
        assertThat(pipeline).as("a pipeline left open").isNull();
        return trips;
    }

    static String normalized(String sql) {
        return PARAMETER
                .matcher(sql)
                .replaceAll("?")
                .replaceAll("\\s+", " ")
                .replaceAll(" ?; ?", "; ")
                .strip();
    }

    /**
     * The API's round trips for one payment: the driver sends a begin with the statement after it, and a
     * multi-statement command's statements together.
     */
    private static List<String> apiRoundTripsForOnePayment() throws Exception {
        List<String> args = List.of(
                "--server.port=0",
                "--management.server.port=0",
                "--spring.datasource.url=" + SharedInfra.postgres().jdbcUrl(OutboxRows.migratedDatabase()),
                "--spring.datasource.username=" + LocalCredentials.POSTGRES.user(),
                "--spring.datasource.password=" + LocalCredentials.POSTGRES.password());
        try (ConfigurableApplicationContext api = new SpringApplicationBuilder(
                        PaymentsApplication.class, Recording.class)
                .run(args.toArray(String[]::new))) {
            String url = "http://127.0.0.1:" + api.getEnvironment().getProperty("local.server.port") + "/payments";
            RECORDED.clear();
            HttpResponse<String> created = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create(url))
                                    .header("Authorization", "Bearer local-key-client-a")
                                    .header("Content-Type", "application/json")
                                    .header("Idempotency-Key", UUID.randomUUID().toString())
                                    .POST(HttpRequest.BodyPublishers.ofString(
                                            "{\"amount\":\"3.00\",\"currency\":\"EUR\",\"description\":\"bench\"}"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            List<String> trips = new ArrayList<>();
            for (int i = 0; i < RECORDED.size(); i++) {
                String statement = normalized(RECORDED.get(i));
                if (statement.equals("BEGIN") && i + 1 < RECORDED.size()) {
                    statement = statement + "; " + normalized(RECORDED.get(++i));
                }
                trips.add(statement);
            }
            return trips;
        }
    }

    /** Wraps the API's DataSource: records what request threads prepare, begin and commit. */
    @Configuration(proxyBeanMethods = false)
    static class Recording {

        @Bean
        static BeanPostProcessor recordingDataSource() {
            return new BeanPostProcessor() {
                @Override
                public Object postProcessAfterInitialization(Object bean, String name) {
                    return bean instanceof DataSource ds && !(bean instanceof RecordingDataSource)
                            ? new RecordingDataSource(ds)
                            : bean;
                }
            };
        }
    }

    static final class RecordingDataSource extends DelegatingDataSource {

        RecordingDataSource(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            return recording(super.getConnection());
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return recording(super.getConnection(user, password));
        }

        private static Connection recording(Connection target) {
            return (Connection) Proxy.newProxyInstance(
                    PgbenchScriptTests.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                        if (Thread.currentThread().getName().startsWith("http-nio")) {
                            switch (m.getName()) {
                                case "prepareStatement", "prepareCall" -> RECORDED.add((String) a[0]);
                                case "setAutoCommit" -> {
                                    if (!(Boolean) a[0]) {
                                        RECORDED.add("BEGIN");
                                    }
                                }
                                case "commit" -> RECORDED.add("COMMIT");
                                case "rollback" -> RECORDED.add("ROLLBACK");
                                default -> {}
                            }
                        }
                        try {
                            return m.invoke(target, a);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }
    }
}
