package io.shotstash.publicdata.records;

import java.time.Instant;

/** {@code project-buzz/<projectSlug>/<slug>.toml}. */
public record ProjectBuzz(
    String id,
    String projectId,
    String postedById,
    String slug,
    String headline,
    String url,
    String summary,
    Instant publishedAt) {}
