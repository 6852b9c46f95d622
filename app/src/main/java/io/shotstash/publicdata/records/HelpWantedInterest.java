package io.shotstash.publicdata.records;

import java.time.Instant;

/** {@code help-wanted-interest/<roleId>/<personSlug>.toml}. */
public record HelpWantedInterest(String roleId, String personId, String message, Instant createdAt) {}
