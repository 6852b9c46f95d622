package io.shotstash.publicdata.records;

import java.time.Instant;

/** {@code blog-posts/<slug>.md}: TOML front matter between {@code +++} lines, then the markdown body. */
public record BlogPost(String id, String slug, String title, String authorId, Instant postedAt, String body) {}
