package io.shotstash.publicdata.records;

import java.time.Instant;

/** {@code help-wanted-roles/<projectSlug>/<id>.toml}. */
public record HelpWantedRole(
    String id,
    String projectId,
    String postedById,
    String title,
    String description,
    String status,
    Instant createdAt) {}
