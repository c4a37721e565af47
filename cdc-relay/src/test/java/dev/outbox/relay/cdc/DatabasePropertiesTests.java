package dev.outbox.relay.cdc;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Where the relay looks for its primary: one server, or a primary and its standbys in the order JDBC tries them. */
class DatabasePropertiesTests {

    @Test
    void oneServerWhenNoListIsGiven() {
        DatabaseProperties db = new DatabaseProperties("db1", 5433, "", "payments", "relay", "secret");
        assertThat(db.servers()).containsExactly(new DatabaseProperties.Server("db1", 5433));
        assertThat(db.jdbcUrl()).isEqualTo("jdbc:postgresql://db1:5433/payments?targetServerType=primary");
        assertThat(new DatabaseProperties("db1", 5433, "  ", "payments", "relay", "secret").servers())
                .containsExactly(new DatabaseProperties.Server("db1", 5433));
    }

    @Test
    void aListOfServersInItsOrderWithDefaultPortsAndNoBlanks() {
        DatabaseProperties db =
                new DatabaseProperties("ignored", 1, "a:5432, b ,, [::1]:6000,c:7000", "payments", "relay", "secret");
        assertThat(db.servers())
                .containsExactly(
                        new DatabaseProperties.Server("a", 5432),
                        new DatabaseProperties.Server("b", 5432),
                        new DatabaseProperties.Server("[::1]", 6000),
                        new DatabaseProperties.Server("c", 7000));
        assertThat(db.jdbcUrl())
                .isEqualTo("jdbc:postgresql://a:5432,b:5432,[::1]:6000,c:7000/payments?targetServerType=primary");
        assertThat(DatabaseProperties.Server.parse("[::1]")).isEqualTo(new DatabaseProperties.Server("[::1]", 5432));
        assertThat(DatabaseProperties.Server.parse(":9")).isEqualTo(new DatabaseProperties.Server(":9", 5432));
        assertThat(new DatabaseProperties.Server("b", 5433).toString()).isEqualTo("b:5433");
    }

    /** The engine takes one host: the same database and login on the server the leadership lock was taken on. */
    @Test
    void theSameDatabaseOnOneServer() {
        DatabaseProperties db = new DatabaseProperties("a", 5432, "a:5432,b:5433", "payments", "relay", "secret");
        DatabaseProperties onB = db.on(new DatabaseProperties.Server("b", 5433));
        assertThat(onB).isEqualTo(new DatabaseProperties("b", 5433, "", "payments", "relay", "secret"));
        assertThat(onB.servers()).isEqualTo(List.of(new DatabaseProperties.Server("b", 5433)));
    }
}
