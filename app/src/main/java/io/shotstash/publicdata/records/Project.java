package io.shotstash.publicdata.records;

import java.time.Instant;

/** {@code projects/<slug>.toml}. */
public record Project(
    String id,
    String slug,
    String title,
    String summary,
    String overview,
    String stage,
    String createdById,
    String maintainerId,
    Instant deletedAt,
    Instant createdAt,
    Instant updatedAt) {}
