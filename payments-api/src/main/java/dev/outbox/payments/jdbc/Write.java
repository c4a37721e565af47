package dev.outbox.payments.jdbc;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One statement whose result its transaction does not read (an insert, an update of a row it already holds): its SQL
 * with named parameters, written by the table's owner, and the parameters' values. {@link Writes} sends a
 * transaction's writes together.
 */
public record Write(String sql, Map<String, Object> params) {

    public Write {
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /** A write of {@code sql}, its parameters to be given with {@link #with}. */
    public static Write of(String sql) {
        return new Write(sql, Map.of());
    }

    /** This write with one more parameter; {@code null} is a value (SQL NULL). */
    public Write with(String name, Object value) {
        Map<String, Object> next = new LinkedHashMap<>(params);
        next.put(name, value);
        return new Write(sql, next);
    }
}
