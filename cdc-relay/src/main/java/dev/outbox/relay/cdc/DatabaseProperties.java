package dev.outbox.relay.cdc;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The payments database as the relay reaches it; the JDBC pool and the Debezium connector share these.
 *
 * <p>{@code hosts} lists the servers that may be the primary ({@code host:port,host:port}, a primary and its
 * standbys); empty means {@code host:port} alone. JDBC reaches whichever of them is the primary
 * ({@code targetServerType=primary}); the CDC engine is pointed at the server its leadership lock was taken on, which
 * is found the same way before every engine start, so after a failover the relay follows the promoted standby without
 * a configuration change.
 *
 * @param host     the primary's host name, when {@code hosts} is empty
 * @param port     the primary's port, when {@code hosts} is empty
 * @param hosts    {@code host:port,host:port}: the primary and its standbys; the relay uses whichever is the primary,
 *                 found again after a failover
 * @param name     the payments database
 * @param user     the relay's login role; it needs the REPLICATION attribute (cdc mode)
 * @param password its password
 */
@ConfigurationProperties("relay.db")
public record DatabaseProperties(
        @DefaultValue("127.0.0.1") String host,
        @DefaultValue("5432") int port,
        @DefaultValue("") String hosts,
        @DefaultValue("payments") String name,
        @DefaultValue("postgres") String user,
        @DefaultValue("postgres") String password) {

    /** One server of {@link #hosts()}. */
    public record Server(String host, int port) {

        static Server parse(String spec) {
            String s = spec.strip();
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || s.endsWith("]")) {
                return new Server(s, 5432);
            }
            return new Server(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1)));
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }

    /** The servers that may be the primary, in the order JDBC tries them. */
    public List<Server> servers() {
        if (hosts == null || hosts.isBlank()) {
            return List.of(new Server(host, port));
        }
        return Arrays.stream(hosts.split(","))
                .filter(s -> !s.isBlank())
                .map(Server::parse)
                .toList();
    }

    /** Every listed server, and only the one that accepts writes (a standby is skipped, never used). */
    public String jdbcUrl() {
        return "jdbc:postgresql://"
                + servers().stream().map(Server::toString).collect(Collectors.joining(","))
                + "/" + name + "?targetServerType=primary";
    }

    /** The same database on one server: what the CDC engine, which takes a single host, is given. */
    public DatabaseProperties on(Server server) {
        return new DatabaseProperties(server.host(), server.port(), "", name, user, password);
    }
}
