package io.shotstash.publicdata.records;

/** {@code tag-assignments/<tagId>/<taggableType>/<taggableId>.toml}. */
public record TagAssignment(String tagId, String taggableType, String taggableId) {}
