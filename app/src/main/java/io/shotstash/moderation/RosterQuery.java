package io.shotstash.moderation;

import io.shotstash.bus.ApiError;
import io.shotstash.bus.QueryNumbers;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * GET /api/admin/members query parameters, validated (unknown keys, bad enums, a bad sort key and
 * out-of-range paging are 422). Dates take a date or a date-time; a date-only upper bound covers
 * that whole day (UTC). Pure.
 */
public record RosterQuery(String q, String vote, String origin, Instant joinedAfter, Instant joinedBefore,
    boolean includeDeactivated, String sort, boolean descending, int page, int perPage) {

  static final Set<String> KEYS =
      Set.of("q", "vote", "origin", "joinedAfter", "joinedBefore", "includeDeactivated", "sort",
          "page", "perPage");
  static final Set<String> VOTES = Set.of("none", "staged", "spam", "legit");
  static final Set<String> ORIGINS = Set.of("imported", "signed-up");
  static final Set<String> SORTS = Set.of("createdAt", "fullName", "lastLoginAt");

  public static RosterQuery parse(Map<String, String> params) {
    Map<String, String> problems = new LinkedHashMap<>();
    params.keySet().stream().filter(k -> !KEYS.contains(k)).forEach(k -> problems.put(k, "is not a known parameter"));
    String vote = params.get("vote");
    if (vote != null && !VOTES.contains(vote)) {
      problems.put("vote", "must be none, staged, spam or legit");
    }
    String origin = params.get("origin");
    if (origin != null && !ORIGINS.contains(origin)) {
      problems.put("origin", "must be imported or signed-up");
    }
    Instant after = date(params.get("joinedAfter"), false, "joinedAfter", problems);
    Instant before = date(params.get("joinedBefore"), true, "joinedBefore", problems);
    String deactivated = params.get("includeDeactivated");
    if (deactivated != null && !deactivated.equals("true") && !deactivated.equals("false")) {
      problems.put("includeDeactivated", "must be true or false");
    }
    String sort = params.getOrDefault("sort", "-createdAt");
    boolean desc = sort.startsWith("-");
    String key = desc ? sort.substring(1) : sort;
    if (!SORTS.contains(key)) {
      problems.put("sort", "must be createdAt, fullName or lastLoginAt, with - for descending");
    }
    int page = QueryNumbers.read(params.get("page"), "page", 1, 1, Integer.MAX_VALUE, problems);
    int perPage = QueryNumbers.read(params.get("perPage"), "perPage", 50, 1, 200, problems);
    String q = params.get("q");
    if (q != null && q.length() > 200) {
      problems.put("q", "must be at most 200 characters");
    }
    if (!problems.isEmpty()) {
      throw ApiError.validation(problems).toException();
    }
    return new RosterQuery(q == null || q.isBlank() ? null : q.strip(), vote, origin, after, before,
        !"false".equals(deactivated), key, desc, page, perPage);
  }

  private static Instant date(String v, boolean upper, String field, Map<String, String> problems) {
    if (v == null) {
      return null;
    }
    try {
      if (v.length() == 10) {
        LocalDate d = LocalDate.parse(v);
        return (upper ? d.plusDays(1) : d).atStartOfDay(ZoneOffset.UTC).toInstant().minusMillis(upper ? 1 : 0);
      }
      return Instant.parse(v);
    } catch (DateTimeParseException e) {
      problems.put(field, "must be a date (2026-09-17) or a date-time (2026-09-17T22:41:00Z)");
      return null;
    }
  }

  public JsonObject toJson() {
    return new JsonObject().put("q", q).put("vote", vote).put("origin", origin)
        .put("joinedAfter", joinedAfter == null ? null : joinedAfter.toString())
        .put("joinedBefore", joinedBefore == null ? null : joinedBefore.toString())
        .put("includeDeactivated", includeDeactivated).put("sort", sort).put("descending", descending).put("page", page)
        .put("perPage", perPage);
  }

  public static RosterQuery fromJson(JsonObject j) {
    return new RosterQuery(j.getString("q"), j.getString("vote"), j.getString("origin"),
        j.getString("joinedAfter") == null ? null : Instant.parse(j.getString("joinedAfter")),
        j.getString("joinedBefore") == null ? null : Instant.parse(j.getString("joinedBefore")),
        j.getBoolean("includeDeactivated"), j.getString("sort"), j.getBoolean("descending"), j.getInteger("page"),
        j.getInteger("perPage"));
  }
}
