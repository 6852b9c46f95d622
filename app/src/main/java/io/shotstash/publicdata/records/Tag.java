package io.shotstash.publicdata.records;

/** {@code tags/<namespace>/<slug>.toml}; namespace is topic, tech or event. */
public record Tag(String id, String namespace, String slug, String title) {}
