package io.shotstash.publicdata;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.publicdata.records.BlogPost;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.records.TagAssignment;
import java.io.UncheckedIOException;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class TomlCodecTest {
  private static final Instant T1 = Instant.parse("2026-01-02T03:04:05.123Z");
  private static final Instant T2 = Instant.parse("2026-02-03T04:05:06.456Z");
  private static final Instant T3 = Instant.parse("2026-03-04T05:06:07.789Z");

  private final TomlCodec codec = new TomlCodec();

  /**
   * One record of every sheet with every field set. Person's {@code agent} is left null here: it is
   * covered on its own by {@link #personAgentFlagIsWrittenAndReadBack()}.
   */
  static Stream<Arguments> fullRecords() {
    return Stream.of(
        Arguments.of(Sheet.PEOPLE,
            new Person("p-1", "legacy-7", "jane-doe", "Jane Doe", "Bio with 'quotes' and \"more\"",
                "avatars/jane.png", "administrator", null, 4242L, "janedoe", T1, "admin-slug", T2, T3)),
        Arguments.of(Sheet.PROJECTS, new Project("pr-1", "open-maps", "Open Maps", "A summary", "A long\noverview",
            "prototyping", "p-1", "p-2", T1, T2, T3)),
        Arguments.of(Sheet.PROJECT_MEMBERSHIPS, new ProjectMembership("pr-1", "p-1", "open-maps", "jane-doe", "Lead",
            true, T1)),
        Arguments.of(Sheet.PROJECT_UPDATES,
            new ProjectUpdate("u-1", "pr-1", "p-1", 7, "We shipped.\n\nMore soon.", T1)),
        Arguments.of(Sheet.PROJECT_BUZZ, new ProjectBuzz("b-1", "pr-1", "p-1", "in-the-news", "In the news",
            "https://example.org/a?b=c", "Summary", T1)),
        Arguments.of(Sheet.HELP_WANTED_ROLES, new HelpWantedRole("r-1", "pr-1", "p-1", "Designer", "Draw things",
            "open", T1)),
        Arguments.of(Sheet.HELP_WANTED_INTEREST, new HelpWantedInterest("r-1", "p-2", "I can help", T1)),
        Arguments.of(Sheet.BLOG_POSTS, new BlogPost("bp-1", "hello-world", "Hello, world", "p-1", T1,
            "# Hello\n\nFirst post.\n")),
        Arguments.of(Sheet.TAGS, new Tag("t-1", "tech", "java", "Java")),
        Arguments.of(Sheet.TAG_ASSIGNMENTS, new TagAssignment("t-1", "project", "pr-1")),
        Arguments.of(Sheet.PERSON_EVALUATIONS, new PersonEvaluation("jane-doe", "human-admin", "spam", "Links only",
            List.of("links", "new-account"), 0.75, T1)),
        Arguments.of(Sheet.SPAM_PURGES, new SpamPurge("sp-1", "p-9", "spammer", "Spam Mer", 99L, "spammer-gh",
            "human-admin", "g-1", "Posted spam", List.of("links", "bulk"),
            List.of(new SpamPurge.Evidence("project-update", "open-maps", 3, "upd", "r-1", "body",
                "project-updates/open-maps/3.toml"),
                new SpamPurge.Evidence("person", null, null, null, null, "bio", "people/spammer.toml")),
            "0123456789abcdef0123456789abcdef01234567", T1, true, T2, "admin-slug")));
  }

  /** One record of every sheet with as many fields null as the type allows. */
  static Stream<Arguments> minimalRecords() {
    return Stream.of(
        Arguments.of(Sheet.PEOPLE, new Person("p-1", null, "jane-doe", null, null, null, null, null, null, null, null,
            null, null, null)),
        Arguments.of(Sheet.PROJECTS, new Project("pr-1", "open-maps", null, null, null, null, null, null, null, null,
            null)),
        Arguments.of(Sheet.PROJECT_MEMBERSHIPS, new ProjectMembership("pr-1", "p-1", null, null, null, false, null)),
        Arguments.of(Sheet.PROJECT_UPDATES, new ProjectUpdate("u-1", null, null, 1, null, null)),
        Arguments.of(Sheet.PROJECT_BUZZ, new ProjectBuzz("b-1", null, null, null, null, null, null, null)),
        Arguments.of(Sheet.HELP_WANTED_ROLES, new HelpWantedRole("r-1", null, null, null, null, null, null)),
        Arguments.of(Sheet.HELP_WANTED_INTEREST, new HelpWantedInterest("r-1", null, null, null)),
        // a markdown file always has a body, possibly empty: see blogPostWithNullBodyReadsBackEmpty
        Arguments.of(Sheet.BLOG_POSTS, new BlogPost("bp-1", null, null, null, null, "")),
        Arguments.of(Sheet.TAGS, new Tag("t-1", null, null, null)),
        Arguments.of(Sheet.TAG_ASSIGNMENTS, new TagAssignment("t-1", null, null)),
        Arguments.of(Sheet.PERSON_EVALUATIONS, new PersonEvaluation("jane-doe", null, null, null, null, null, null)),
        Arguments.of(Sheet.SPAM_PURGES, new SpamPurge("sp-1", null, null, null, null, null, null, null, null, null,
            null, null, null, false, null, null)));
  }

  @Test
  void theTablesCoverEverySheet() {
    Set<Sheet> full = fullRecords().map(a -> (Sheet) a.get()[0]).collect(Collectors.toSet());
    Set<Sheet> minimal = minimalRecords().map(a -> (Sheet) a.get()[0]).collect(Collectors.toSet());
    assertThat(full).isEqualTo(EnumSet.allOf(Sheet.class));
    assertThat(minimal).isEqualTo(EnumSet.allOf(Sheet.class));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fullRecords")
  void aRecordWithEveryFieldSetRoundTrips(Sheet sheet, Object record) {
    assertThat(codec.decode(sheet, codec.encode(sheet, record))).isEqualTo(record);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("minimalRecords")
  void aRecordWithNullFieldsRoundTrips(Sheet sheet, Object record) {
    assertThat(codec.decode(sheet, codec.encode(sheet, record))).isEqualTo(record);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource({"fullRecords", "minimalRecords"})
  void everyNonNullFieldIsWrittenUnderItsComponentNameAndNoNullFieldIsWritten(Sheet sheet, Object record)
      throws Exception {
    String text = codec.encodeToString(sheet, record);
    String toml = sheet.markdown() ? frontMatter(text) : text;
    for (RecordComponent c : record.getClass().getRecordComponents()) {
      if (sheet.markdown() && c.getName().equals("body")) {
        continue;
      }
      Object value = c.getAccessor().invoke(record);
      if (value == null) {
        assertThat(toml).as("%s must not be written", c.getName()).doesNotContainPattern(keyLine(c.getName()));
      } else {
        assertThat(toml).as("%s must be written", c.getName()).containsPattern(keyLine(c.getName()));
      }
    }
    assertThat(toml).doesNotContain("null");
  }

  @Test
  void keysAreTheCamelCaseComponentNames() {
    String person = codec.encodeToString(Sheet.PEOPLE, fullRecord(Sheet.PEOPLE));
    assertThat(person).contains("fullName = 'Jane Doe'\n", "legacyId = 'legacy-7'\n", "githubUserId = 4242\n",
        "accountLevel = 'administrator'\n");
    String membership = codec.encodeToString(Sheet.PROJECT_MEMBERSHIPS, fullRecord(Sheet.PROJECT_MEMBERSHIPS));
    assertThat(membership).contains("isMaintainer = true\n", "projectSlug = 'open-maps'\n")
        .doesNotContainPattern(keyLine("maintainer"));
  }

  @Test
  void timestampsAreIso8601UtcStringsWithMilliseconds() {
    String text = codec.encodeToString(Sheet.PEOPLE, fullRecord(Sheet.PEOPLE));
    assertThat(text).contains("deletedAt = '2026-01-02T03:04:05.123Z'\n", "createdAt = '2026-02-03T04:05:06.456Z'\n",
        "updatedAt = '2026-03-04T05:06:07.789Z'\n");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "createdAt = '2026-01-02T03:04:05.123Z'      | 2026-01-02T03:04:05.123Z",
      "createdAt = \"2026-01-02T03:04:05Z\"         | 2026-01-02T03:04:05Z",
      "createdAt = '2026-01-02T05:04:05.123+02:00' | 2026-01-02T03:04:05.123Z",
      "createdAt = 2026-01-02T03:04:05.123Z        | 2026-01-02T03:04:05.123Z"})
  void timestampsAreReadFromStringsAndTomlDateTimes(String line, String expected) {
    Person p = (Person) codec.decode(Sheet.PEOPLE, (line.strip() + "\n").getBytes(UTF_8));
    assertThat(p.createdAt()).isEqualTo(Instant.parse(expected));
  }

  @Test
  void aMembershipMaintainerFlagRoundTripsBothWays() {
    for (boolean flag : new boolean[]{true, false}) {
      ProjectMembership m = new ProjectMembership("pr-1", "p-1", "open-maps", "jane-doe", null, flag, T1);
      String text = codec.encodeToString(Sheet.PROJECT_MEMBERSHIPS, m);
      assertThat(text).contains("isMaintainer = " + flag + "\n");
      assertThat(codec.decode(Sheet.PROJECT_MEMBERSHIPS, text.getBytes(UTF_8))).isEqualTo(m);
    }
  }

  @Test
  void personAgentFlagIsWrittenAndReadBack() {
    Person agent = new Person("p-3", null, "helper-bot", "Helper Bot", null, null, "user", true, null, null, null,
        null, T1, T1);
    String text = codec.encodeToString(Sheet.PEOPLE, agent);
    assertThat(text).contains("agent = true\n");
    assertThat(codec.decode(Sheet.PEOPLE, text.getBytes(UTF_8))).isEqualTo(agent);
    Person read = (Person) codec.decode(Sheet.PEOPLE, "slug = 'helper-bot'\nagent = true\n".getBytes(UTF_8));
    assertThat(read.isAgentAccount()).isTrue();
  }

  @Test
  void derivedAccessorsAreNotWritten() {
    String person = codec.encodeToString(Sheet.PEOPLE, fullRecord(Sheet.PEOPLE));
    assertThat(person).doesNotContainPattern(keyLine("deactivated")).doesNotContainPattern(keyLine("level"));
    String evaluation = codec.encodeToString(Sheet.PERSON_EVALUATIONS, fullRecord(Sheet.PERSON_EVALUATIONS));
    assertThat(evaluation).doesNotContainPattern(keyLine("human")).doesNotContainPattern(keyLine("voterSlug"));
    String purge = codec.encodeToString(Sheet.SPAM_PURGES, fullRecord(Sheet.SPAM_PURGES));
    assertThat(purge).doesNotContainPattern(keyLine("blockInForce"));
  }

  @Test
  void evaluationFlagsAreATomlArrayAndRoundTrip() {
    PersonEvaluation e = (PersonEvaluation) fullRecord(Sheet.PERSON_EVALUATIONS);
    String text = codec.encodeToString(Sheet.PERSON_EVALUATIONS, e);
    assertThat(text).contains("flags = ['links', 'new-account']\n");
    PersonEvaluation read = (PersonEvaluation) codec.decode(Sheet.PERSON_EVALUATIONS, text.getBytes(UTF_8));
    assertThat(read.flags()).containsExactly("links", "new-account");
    PersonEvaluation noFlags = (PersonEvaluation) codec.decode(Sheet.PERSON_EVALUATIONS,
        "personSlug = 'x'\n".getBytes(UTF_8));
    assertThat(noFlags.flags()).isEmpty();
  }

  @Test
  void spamPurgeFlagsAndNestedEvidenceRoundTripWithoutNullKeys() {
    SpamPurge purge = (SpamPurge) fullRecord(Sheet.SPAM_PURGES);
    String text = codec.encodeToString(Sheet.SPAM_PURGES, purge);
    assertThat(text).contains("flags = ['links', 'bulk']\n");
    String evidenceLine = text.lines().filter(l -> l.startsWith("evidence")).findFirst().orElseThrow();
    // the second item has only record, field and path: its null members are absent too
    assertThat(evidenceLine).contains("{record = 'person', field = 'bio', path = 'people/spammer.toml'}")
        .contains("number = 3");
    SpamPurge read = (SpamPurge) codec.decode(Sheet.SPAM_PURGES, text.getBytes(UTF_8));
    assertThat(read.evidence()).containsExactlyElementsOf(purge.evidence());
    assertThat(read.flags()).containsExactly("links", "bulk");
    assertThat(read).isEqualTo(purge);
  }

  @Test
  void spamPurgeEvidenceIsAlsoReadFromAnArrayOfTables() {
    String text = "id = 'sp-1'\nblocksSignIn = true\nflags = ['a']\n\n"
        + "[[evidence]]\nrecord = 'person'\npath = 'people/x.toml'\n\n"
        + "[[evidence]]\nrecord = 'project-update'\nproject = 'p'\nnumber = 2\n";
    SpamPurge read = (SpamPurge) codec.decode(Sheet.SPAM_PURGES, text.getBytes(UTF_8));
    assertThat(read.evidence()).containsExactly(
        new SpamPurge.Evidence("person", null, null, null, null, null, "people/x.toml"),
        new SpamPurge.Evidence("project-update", "p", 2, null, null, null, null));
    assertThat(read.blockInForce()).isTrue();
  }

  @Test
  void stringsWithQuotesBackslashesAndLineBreaksRoundTrip() {
    ProjectUpdate u = new ProjectUpdate("u-1", null, null, 1, "it's \"quoted\"\n\\ back\\slash ''' \"\"\"\r\ttab", T1);
    assertThat(codec.decode(Sheet.PROJECT_UPDATES, codec.encode(Sheet.PROJECT_UPDATES, u))).isEqualTo(u);
  }

  // ---- blog posts: markdown with TOML front matter ----

  @Test
  void blogPostIsFrontMatterBetweenFencesThenTheBody() {
    BlogPost post = (BlogPost) fullRecord(Sheet.BLOG_POSTS);
    String text = codec.encodeToString(Sheet.BLOG_POSTS, post);
    assertThat(text).isEqualTo("+++\n"
        + "id = 'bp-1'\n"
        + "slug = 'hello-world'\n"
        + "title = 'Hello, world'\n"
        + "authorId = 'p-1'\n"
        + "postedAt = '2026-01-02T03:04:05.123Z'\n"
        + "+++\n"
        + "# Hello\n\nFirst post.\n");
    assertThat(codec.decode(Sheet.BLOG_POSTS, text.getBytes(UTF_8))).isEqualTo(post);
  }

  @Test
  void blogPostBodyMayContainFenceLinesLater() {
    BlogPost post = new BlogPost("bp-1", "fences", "Fences", "p-1", T1, "intro\n+++\nnot front matter\n+++\nend");
    byte[] bytes = codec.encode(Sheet.BLOG_POSTS, post);
    assertThat(codec.decode(Sheet.BLOG_POSTS, bytes)).isEqualTo(post);
  }

  @Test
  void blogPostBodyMayStartWithAFenceLine() {
    BlogPost post = new BlogPost("bp-1", "fences", "Fences", "p-1", T1, "+++\nstill body\n");
    assertThat(codec.decode(Sheet.BLOG_POSTS, codec.encode(Sheet.BLOG_POSTS, post))).isEqualTo(post);
  }

  @Test
  void blogPostWithCrlfLineEndingsIsRead() {
    String text = "+++\r\nid = 'bp-1'\r\nslug = 'crlf'\r\npostedAt = '2026-01-02T03:04:05.123Z'\r\n+++\r\n"
        + "line one\r\n+++\r\nline two\r\n";
    BlogPost read = (BlogPost) codec.decode(Sheet.BLOG_POSTS, text.getBytes(UTF_8));
    assertThat(read).isEqualTo(new BlogPost("bp-1", "crlf", null, null, T1, "line one\n+++\nline two\n"));
  }

  @Test
  void blogPostWithoutBodyAfterTheClosingFenceHasAnEmptyBody() {
    BlogPost read = (BlogPost) codec.decode(Sheet.BLOG_POSTS, "+++\nslug = 'a'\n+++".getBytes(UTF_8));
    assertThat(read.slug()).isEqualTo("a");
    assertThat(read.body()).isEmpty();
  }

  @Test
  void blogPostWithNullBodyReadsBackEmpty() {
    BlogPost post = new BlogPost("bp-1", "empty", "Empty", "p-1", T1, null);
    String text = codec.encodeToString(Sheet.BLOG_POSTS, post);
    assertThat(text).endsWith("+++\n").doesNotContainPattern(keyLine("body"));
    assertThat(((BlogPost) codec.decode(Sheet.BLOG_POSTS, text.getBytes(UTF_8))).body()).isEmpty();
  }

  @Test
  void blogPostFrontMatterNeverHoldsTheBody() {
    String text = codec.encodeToString(Sheet.BLOG_POSTS, fullRecord(Sheet.BLOG_POSTS));
    assertThat(frontMatter(text)).doesNotContainPattern(keyLine("body"));
  }

  // ---- reading files written by others ----

  @Test
  void unknownKeysAndTablesAreIgnoredOnRead() {
    String text = "id = 'p-1'\nslug = 'jane-doe'\nfavouriteColour = 'green'\nshoeSize = 42\n"
        + "[extra]\nnested = true\n";
    Person read = (Person) codec.decode(Sheet.PEOPLE, text.getBytes(UTF_8));
    assertThat(read).isEqualTo(new Person("p-1", null, "jane-doe", null, null, null, null, null, null, null, null, null,
        null, null));
  }

  @Test
  void unknownFrontMatterKeysAreIgnoredOnRead() {
    String text = "+++\nslug = 'a'\ndraft = true\ntags = ['x']\n+++\nbody\n";
    assertThat(codec.decode(Sheet.BLOG_POSTS, text.getBytes(UTF_8)))
        .isEqualTo(new BlogPost(null, "a", null, null, null, "body\n"));
  }

  /** Each row: the sheet, the name its error message gives, why the file is malformed, and the file. */
  @ParameterizedTest(name = "{0}: {2}")
  @CsvSource(delimiter = '|', value = {
      "PEOPLE     | people     | value missing         | slug = \\n",
      "PEOPLE     | people     | unterminated string   | slug = 'jane\\n",
      "PEOPLE     | people     | duplicate key         | slug = 'a'\\nslug = 'b'\\n",
      "PEOPLE     | people     | not a timestamp       | createdAt = 'yesterday'\\n",
      "PEOPLE     | people     | wrong type for number | githubUserId = 'many'\\n",
      "PEOPLE     | people     | not toml at all       | {\"slug\": \"json\"}\\n",
      "BLOG_POSTS | blog-posts | no opening fence      | slug = 'a'\\n+++\\nbody",
      "BLOG_POSTS | blog-posts | no closing fence      | +++\\nslug = 'a'\\nbody",
      "BLOG_POSTS | blog-posts | broken front matter   | +++\\nslug = \\n+++\\nbody"})
  void aMalformedFileIsAnUncheckedIoException(Sheet sheet, String name, String why, String escaped) {
    byte[] bytes = escaped.replace("\\n", "\n").getBytes(UTF_8);
    assertThatThrownBy(() -> codec.decode(sheet, bytes)).as(why)
        .isInstanceOf(UncheckedIOException.class)
        .hasMessageStartingWith("not a valid " + name + " record");
  }

  // ---- helpers ----

  private static Object fullRecord(Sheet sheet) {
    return fullRecords().filter(a -> a.get()[0] == sheet).map(a -> a.get()[1]).findFirst().orElseThrow();
  }

  private static Pattern keyLine(String key) {
    return Pattern.compile("(?m)^" + Pattern.quote(key) + " = ");
  }

  private static String frontMatter(String markdown) {
    List<String> lines = new ArrayList<>(markdown.lines().toList());
    assertThat(lines.get(0)).isEqualTo("+++");
    int close = lines.subList(1, lines.size()).indexOf("+++") + 1;
    assertThat(close).isPositive();
    return String.join("\n", lines.subList(1, close)) + "\n";
  }
}
