package dev.outbox.payments.jdbc;

import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * One statement whose result its transaction does not read (an insert, an update of a row it already holds): its SQL
 * with named parameters, written by the table's owner, and the parameters' values. {@link Writes} sends a
 * transaction's writes together.
 */
public record Write(String sql, SqlParameterSource params) {}
