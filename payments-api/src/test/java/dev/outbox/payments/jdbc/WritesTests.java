package dev.outbox.payments.jdbc;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WritesTests {

    /** An event or a key's response written outside its transaction could commit without the change it belongs to. */
    @Test
    void writesOutsideATransactionAreRefusedBeforeAnythingIsSent() {
        // a data source that cannot connect: a refusal that reached the database would fail differently
        Writes writes =
                new Writes(JdbcClient.create(new DriverManagerDataSource("jdbc:postgresql://127.0.0.1:1/none")));
        Write write = new Write("INSERT INTO t (a) VALUES (:a)", new MapSqlParameterSource("a", 1));

        assertThatThrownBy(() -> writes.send(List.of(write)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("writes are sent inside their transaction");
    }
}
