package io.shotstash.publicdata.records;

import java.time.Instant;

/** {@code project-updates/<projectSlug>/<number>.toml}. */
public record ProjectUpdate(String id, String projectId, String authorId, int number, String body, Instant createdAt) {}
