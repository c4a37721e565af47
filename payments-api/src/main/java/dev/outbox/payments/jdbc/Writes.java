package dev.outbox.payments.jdbc;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Sends a transaction's writes to PostgreSQL in one round trip: the statements, each as its owner wrote it, go out
 * as one multi-statement command (the driver sends a parse, bind and execute per statement and waits once), in the
 * order given. The first failing statement fails the call and aborts the transaction, as it would alone. Each
 * statement's named parameters become positional the way Spring's own named-parameter template does it.
 */
@Component
public final class Writes {

    /** Parsed once per statement text; the texts are the owners' constants, so the map stays small. */
    private final Map<String, ParsedSql> parsed = new ConcurrentHashMap<>();

    private final JdbcClient jdbc;

    public Writes(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public void send(List<Write> writes) {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("writes are sent inside their transaction");
        }
        if (writes.isEmpty()) {
            return;
        }
        StringBuilder sql = new StringBuilder();
        List<Object> values = new ArrayList<>();
        for (Write write : writes) {
            ParsedSql statement = parsed.computeIfAbsent(write.sql(), NamedParameterUtils::parseSqlStatement);
            if (!sql.isEmpty()) {
                sql.append(";\n");
            }
            sql.append(NamedParameterUtils.substituteNamedParameters(statement, write.params()));
            values.addAll(Arrays.asList(NamedParameterUtils.buildValueArray(statement, write.params(), null)));
        }
        jdbc.sql(sql.toString()).params(values).update();
    }
}
