package io.shotstash.publicdata.records;

import java.time.Instant;

/** {@code project-memberships/<projectSlug>/<personSlug>.toml}. */
public record ProjectMembership(
    String projectId,
    String personId,
    String projectSlug,
    String personSlug,
    String role,
    boolean isMaintainer,
    Instant joinedAt) {}
