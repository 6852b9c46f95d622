package io.shotstash.moderation;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * The spam-purge log's filters as the route sends them ({by?, slug?, since?, blocking?, page,
 * perPage}, already validated) and the records they select, newest purge first. Pure.
 */
record PurgeLogQuery(String by, String slug, Instant since, Boolean blocking, int page, int perPage) {

  static PurgeLogQuery fromJson(JsonObject msg) {
    return new PurgeLogQuery(msg.getString("by"), msg.getString("slug"),
        msg.getString("since") == null ? null : Instant.parse(msg.getString("since")), msg.getBoolean("blocking"),
        msg.getInteger("page", 1), msg.getInteger("perPage", 50));
  }

  /** Every record that passes the filters, newest purge first (undated last). */
  List<SpamPurge> matching(PublicState state) {
    return state.all(Sheet.SPAM_PURGES, SpamPurge.class).stream()
        .filter(s -> by == null || matchesBy(s.by(), by))
        .filter(s -> slug == null || slug.equalsIgnoreCase(s.slug()))
        .filter(s -> since == null || (s.purgedAt() != null && !s.purgedAt().isBefore(since)))
        .filter(s -> blocking == null || s.blockInForce() == blocking)
        .sorted(Comparator.comparing(SpamPurge::purgedAt, Comparator.nullsLast(Comparator.reverseOrder()))).toList();
  }

  /** {@code by}: agent, human or scheduled for a kind of purger, else one purger's exact {@code by}. */
  static boolean matchesBy(String recordBy, String filter) {
    if (recordBy == null) {
      return false;
    }
    return switch (filter) {
      case "agent" -> recordBy.startsWith("agent-");
      case "human" -> recordBy.startsWith("human-");
      case "scheduled" -> recordBy.equals("scheduled");
      default -> recordBy.equals(filter);
    };
  }
}
