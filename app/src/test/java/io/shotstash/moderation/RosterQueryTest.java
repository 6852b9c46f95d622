package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shotstash.bus.ApiError;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * GET /api/admin/members query parameters: only known keys, the vote and origin enums, the sort
 * keys (createdAt, fullName, lastLoginAt, with - for descending), paging (perPage at most 200),
 * dates as a date or a date-time with a date-only upper bound covering the whole day (UTC).
 */
class RosterQueryTest {

  private static RosterQuery parse(String... keyValues) {
    Map<String, String> params = new HashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      params.put(keyValues[i], keyValues[i + 1]);
    }
    return RosterQuery.parse(params);
  }

  /** The 422's fields for a query that must be refused. */
  private static Map<String, Object> refused(String... keyValues) {
    Throwable t = catchThrowable(() -> parse(keyValues));
    ApiError error = ApiError.from(t);
    assertThat(error).as("refused: %s", String.join(",", keyValues)).isNotNull();
    assertThat(error.status()).isEqualTo(422);
    assertThat(error.code()).isEqualTo("validation_failed");
    return error.fields().getMap();
  }

  @Test
  void defaults() {
    RosterQuery q = parse();
    assertThat(q.q()).isNull();
    assertThat(q.vote()).isNull();
    assertThat(q.origin()).isNull();
    assertThat(q.joinedAfter()).isNull();
    assertThat(q.joinedBefore()).isNull();
    assertThat(q.includeDeactivated()).isTrue();
    assertThat(q.sort()).isEqualTo("createdAt");
    assertThat(q.descending()).isTrue();
    assertThat(q.page()).isEqualTo(1);
    assertThat(q.perPage()).isEqualTo(50);
  }

  @ParameterizedTest(name = "unknown key {0}")
  @ValueSource(strings = {"foo", "email", "per_page", "Sort", "limit", "includedeactivated"})
  void anUnknownKeyIsRefused(String key) {
    assertThat(refused(key, "1")).containsKey(key);
  }

  @ParameterizedTest(name = "vote={0}")
  @ValueSource(strings = {"none", "staged", "spam", "legit"})
  void everyVoteFilter(String vote) {
    assertThat(parse("vote", vote).vote()).isEqualTo(vote);
  }

  @ParameterizedTest(name = "bad {0}={1}")
  @CsvSource(delimiter = '|', value = {
      "vote | ''", "vote | 'SPAM'", "vote | 'Legit'", "vote | 'any'", "vote | 'agent'", "vote | 'spam,legit'",
      "origin | ''", "origin | 'signedup'", "origin | 'github'", "origin | 'Imported'", "origin | 'laddr'",
      "includeDeactivated | ''", "includeDeactivated | 'yes'", "includeDeactivated | '1'",
      "includeDeactivated | 'TRUE'", "includeDeactivated | 'no'", "sort | ''", "sort | '-'", "sort | 'slug'",
      "sort | 'email'", "sort | '--createdAt'", "sort | '+fullName'", "sort | 'createdat'",
      "sort | 'createdAt,fullName'"})
  void aBadValueIsRefusedOnItsKey(String key, String value) {
    assertThat(refused(key, value)).containsKey(key);
  }

  @ParameterizedTest(name = "origin={0}")
  @ValueSource(strings = {"imported", "signed-up"})
  void everyOrigin(String origin) {
    assertThat(parse("origin", origin).origin()).isEqualTo(origin);
  }

  @ParameterizedTest(name = "includeDeactivated={0}")
  @CsvSource({"true, true", "false, false"})
  void includeDeactivated(String value, boolean expected) {
    assertThat(parse("includeDeactivated", value).includeDeactivated()).isEqualTo(expected);
  }

  @ParameterizedTest(name = "sort={0}")
  @CsvSource({"createdAt, createdAt, false", "-createdAt, createdAt, true", "fullName, fullName, false",
      "-fullName, fullName, true", "lastLoginAt, lastLoginAt, false", "-lastLoginAt, lastLoginAt, true"})
  void everySortKey(String sort, String key, boolean descending) {
    RosterQuery q = parse("sort", sort);
    assertThat(q.sort()).isEqualTo(key);
    assertThat(q.descending()).isEqualTo(descending);
  }

  @ParameterizedTest(name = "page={0}, perPage={1}")
  @CsvSource({"1, 1", "1, 50", "2, 200", "1000, 10"})
  void paging(int page, int perPage) {
    RosterQuery q = parse("page", Integer.toString(page), "perPage", Integer.toString(perPage));
    assertThat(q.page()).isEqualTo(page);
    assertThat(q.perPage()).isEqualTo(perPage);
  }

  @ParameterizedTest(name = "bad perPage={0}")
  @ValueSource(strings = {"0", "-1", "201", "1000", "x", "1.5", ""})
  void perPageIsOneTo200(String perPage) {
    assertThat(refused("perPage", perPage)).containsKey("perPage");
  }

  @ParameterizedTest(name = "bad page={0}")
  @ValueSource(strings = {"0", "-3", "one", "", "2.0"})
  void pageIsAPositiveWholeNumber(String page) {
    assertThat(refused("page", page)).containsKey("page");
  }

  @Test
  void aDateOnlyLowerBoundStartsTheDay() {
    assertThat(parse("joinedAfter", "2026-09-17").joinedAfter()).isEqualTo(Instant.parse("2026-09-17T00:00:00Z"));
  }

  @Test
  void aDateOnlyUpperBoundCoversTheWholeDay() {
    Instant before = parse("joinedBefore", "2026-09-17").joinedBefore();
    assertThat(before).isAfterOrEqualTo(Instant.parse("2026-09-17T23:59:59.999Z"));
    assertThat(before).isBefore(Instant.parse("2026-09-18T00:00:00Z"));
  }

  @Test
  void aDateTimeBoundIsExact() {
    RosterQuery q = parse("joinedAfter", "2026-09-17T22:41:00Z", "joinedBefore", "2026-09-18T01:12:30.500Z");
    assertThat(q.joinedAfter()).isEqualTo(Instant.parse("2026-09-17T22:41:00Z"));
    assertThat(q.joinedBefore()).isEqualTo(Instant.parse("2026-09-18T01:12:30.500Z"));
  }

  @Test
  void aDateTimeWithAnOffsetIsAccepted() {
    assertThat(parse("joinedAfter", "2026-09-17T22:41:00+02:00").joinedAfter())
        .isEqualTo(Instant.parse("2026-09-17T20:41:00Z"));
  }

  @ParameterizedTest(name = "bad date {0}")
  @ValueSource(strings = {"", "yesterday", "2026-13-01", "2026-02-30", "2026-9-17", "17/09/2026",
      "2026-09-17T25:00:00Z",
      "1726600000"})
  void aBadDateIsRefused(String date) {
    assertThat(refused("joinedAfter", date)).containsKey("joinedAfter");
    assertThat(refused("joinedBefore", date)).containsKey("joinedBefore");
  }

  @Test
  void qIsTrimmedAndABlankQIsNone() {
    assertThat(parse("q", "  .com ").q()).isEqualTo(".com");
    assertThat(parse("q", "   ").q()).isNull();
    assertThat(parse("q", "").q()).isNull();
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    assertThat(refused("vote", "x", "origin", "y", "sort", "z", "perPage", "500", "bogus", "1"))
        .containsKeys("vote", "origin", "sort", "perPage", "bogus");
  }

  @Test
  void everythingTogether() {
    RosterQuery q = parse("q", "jane", "vote", "staged", "origin", "signed-up", "joinedAfter", "2026-01-01",
        "joinedBefore", "2026-01-31", "includeDeactivated", "false", "sort", "fullName", "page", "3", "perPage", "200");
    assertThat(q).isEqualTo(new RosterQuery("jane", "staged", "signed-up", Instant.parse("2026-01-01T00:00:00Z"),
        q.joinedBefore(), false, "fullName", false, 3, 200));
    assertThat(q.joinedBefore()).isBetween(Instant.parse("2026-01-31T23:59:59.999Z"),
        Instant.parse("2026-02-01T00:00:00Z"));
  }

  @Test
  void theQueryTravelsAsJson() {
    RosterQuery q = parse("q", "jane", "vote", "spam", "origin", "imported", "joinedAfter", "2026-01-01",
        "joinedBefore", "2026-01-31T10:00:00Z", "includeDeactivated", "false", "sort", "-lastLoginAt", "page", "2",
        "perPage", "10");
    assertThat(RosterQuery.fromJson(q.toJson())).isEqualTo(q);
    RosterQuery defaults = parse();
    assertThat(RosterQuery.fromJson(defaults.toJson())).isEqualTo(defaults);
  }
}
