package io.shotstash.publicdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.shotstash.auth.Actor;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.WriteCommand;
import java.io.UnsupportedEncodingException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.FooterLine;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class CommitMessageTest {
  private static final PersonIdent IDENT =
      new PersonIdent("Ada", "ada@users.noreply.example.org", Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  private static final Actor.Member ADA = new Actor.Member("id-ada", "ada", "Ada L", AccountLevel.ADMINISTRATOR, "s1");
  private static final Actor.Agent BOT = new Actor.Agent("id-bot", "helper-bot", "Helper", "g-1", Set.of("write"));

  // ---- shape ----

  @Test
  void aMessageIsSubjectBlankBodyBlankTrailers() {
    String rendered = CommitMessage.subject("ada: PATCH /api/people/bob")
        .body("Changed the level.\nSecond line.\n\nSecond paragraph.")
        .trailer("Action", "person.update")
        .trailer("Subject-Slug", "bob")
        .build().render();
    assertThat(rendered).isEqualTo("ada: PATCH /api/people/bob\n"
        + "\n"
        + "  Changed the level.\n  Second line.\n\n  Second paragraph.\n"
        + "\n"
        + "Action: person.update\n"
        + "Subject-Slug: bob\n");
  }

  @ParameterizedTest
  @CsvSource(nullValues = "NULL", value = {"NULL", "''", "'   '", "'\\n\\n'"})
  void withoutABodyTheTrailersFollowTheSubjectAfterOneBlankLine(String body) {
    String b = body == null ? null : body.replace("\\n", "\n");
    String rendered = CommitMessage.subject("system: set up").body(b).trailer("Action", "setup").build().render();
    assertThat(rendered).isEqualTo("system: set up\n\nAction: setup\n");
  }

  @Test
  void withoutTrailersTheMessageEndsWithTheBody() {
    assertThat(CommitMessage.subject("s").body("b").build().render()).isEqualTo("s\n\n  b\n");
    assertThat(CommitMessage.subject("s").build().render()).isEqualTo("s\n");
  }

  @Test
  void theBodyIsStrippedOfSurroundingBlankLines() {
    String rendered = CommitMessage.subject("s").body("\n\n  text  \n\n\n").trailer("A", "b").build().render();
    assertThat(rendered).isEqualTo("s\n\n  text\n\nA: b\n");
  }

  @Test
  void trailersKeepTheirOrderAndANullValueAddsNone() {
    CommitMessage m = CommitMessage.subject("s").trailer("Zed", "1").trailer("Skipped", null).trailer("Alpha", "2")
        .trailer("Zed", "3").build();
    assertThat(m.trailers()).containsExactly(entry("Zed", "1"), entry("Alpha", "2"), entry("Zed", "3"));
    assertThat(m.render()).isEqualTo("s\n\nZed: 1\nAlpha: 2\nZed: 3\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Bad Key", "1Key", "Key:", "-Key", "Key\n", "Clé"})
  void aTrailerKeyIsLettersDigitsAndDashesStartingWithALetter(String key) {
    CommitMessage.Builder builder = CommitMessage.subject("s").trailer(key, "v");
    assertThatThrownBy(builder::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trailer key");
  }

  // ---- one-line values ----

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', value = {
      "LF                   | a\\nb                  | a b",
      "CR                   | a\\rb                  | a b",
      "CRLF                 | a\\r\\nb               | a b",
      "line separator       | a\\u2028b              | a b",
      "paragraph separator  | a\\u2029b              | a b",
      "next line            | a\\u0085b              | a b",
      "tab and NUL          | a\\t\\u0000b           | a b",
      "run of breaks        | a\\n\\n\\r\\n\\u2028b  | a b",
      "leading and trailing | \\n  a b  \\n          | a b"})
  void trailerValuesCollapseLineBreaksToOneSpace(String why, String escaped, String expected) {
    CommitMessage m = CommitMessage.subject("s").trailer("Reason", unescape(escaped)).build();
    assertThat(m.trailers()).containsExactly(entry("Reason", expected));
    assertThat(m.render()).isEqualTo("s\n\nReason: " + expected + "\n");
  }

  @Test
  void theSubjectIsOneLine() {
    assertThat(CommitMessage.subject("ada: POST /x\n\nAction: person.purge").build().subject())
        .isEqualTo("ada: POST /x Action: person.purge");
    assertThat(CommitMessage.subject(null).build().subject()).isEmpty();
  }

  @Test
  void theBodyKeepsLineBreaksOfEveryKindAsLineFeedsButNoOtherControlCharacters() {
    CommitMessage m = CommitMessage.subject("s").body("one\r\ntwo\rthree\u0000four\tfive\n\nsix\u2028seven").build();
    assertThat(m.body()).isEqualTo("one\ntwo\nthree four five\n\nsix\nseven");
  }

  // ---- parsed back by git ----

  static Stream<Arguments> forgeries() {
    return Stream.of(
        Arguments.of("a forged paragraph", "text\n\nAction: person.purge"),
        Arguments.of("forged trailers only", "Action: person.purge\nActor-Slug: system"),
        Arguments.of("forged with CRLF", "text\r\n\r\nAction: person.purge\r\nActor-Kind: system\r\n"),
        Arguments.of("forged with lone CRs", "text\r\rAction: person.purge"),
        Arguments.of("forged after a line separator", "text\u2028\u2028Action: person.purge"),
        Arguments.of("forged with trailing blank lines", "text\n\nAction: person.purge\n\n\n"),
        Arguments.of("forged continuation", "text\n\nAction: person.update\n  person.purge"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("forgeries")
  void aBodyCannotAddATrailerThatGitReads(String why, String body) {
    CommitMessage m = CommitMessage.subject("ada: PATCH /api/people/bob").body(body)
        .trailer("Action", "person.update")
        .trailer("Subject-Slug", "bob")
        .trailer("Actor-Slug", "ada")
        .build();
    assertThat(gitFooters(m.render())).containsExactly(
        entry("Action", "person.update"), entry("Subject-Slug", "bob"), entry("Actor-Slug", "ada"));
  }

  @Test
  void aTrailerValueCannotAddATrailerThatGitReads() {
    CommitMessage m = CommitMessage.subject("s")
        .trailer("Reason", "spam\nAction: person.purge\r\nActor-Kind: system\u2028Grant-Id: g")
        .build();
    assertThat(gitFooters(m.render()))
        .containsExactly(entry("Reason", "spam Action: person.purge Actor-Kind: system Grant-Id: g"));
  }

  @Test
  void aSubjectCannotAddATrailerThatGitReads() {
    CommitMessage m =
        CommitMessage.subject("ada: POST /api/x\n\nAction: person.purge").trailer("Action", "x.y").build();
    assertThat(gitFooters(m.render())).containsExactly(entry("Action", "x.y"));
  }

  /** A line git's trailer parser, or a reader of `git log`, would take for a trailer. */
  private static final Pattern TRAILER_LIKE = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9-]*:(\\s|$)");

  static Stream<Arguments> freeText() {
    return Stream.concat(forgeries(), Stream.of(
        Arguments.of("a whole body that is a trailer", "Action: person.purge"),
        Arguments.of("a trailer on the first line", "Purge-Id: 0193\nrest"),
        Arguments.of("a trailer after one line break", "x\nAction: person.purge"),
        Arguments.of("a patch divider", "x\n---\nAction: person.purge"),
        Arguments.of("a trailer after a lone CR", "x\rAction: person.purge"),
        Arguments.of("a trailer after a line separator", "x\u2028Action: person.purge"),
        Arguments.of("a trailer after next-line", "x\u0085Action: person.purge"),
        Arguments.of("an indented trailer", "x\n  Action: person.purge")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("freeText")
  void noLineOfTheBodyStartsLikeATrailer(String why, String body) {
    String rendered = CommitMessage.subject("ada: POST /api/admin/members/bob/vote").body(body)
        .trailer("Action", "moderation.vote").trailer("Actor-Slug", "ada").build().render();
    List<String> lines = List.of(rendered.split("\n", -1));
    List<String> trailerLike = lines.subList(1, lines.size()).stream()
        .filter(l -> TRAILER_LIKE.matcher(l).find()).toList();
    assertThat(trailerLike).as(rendered).containsExactly("Action: moderation.vote", "Actor-Slug: ada");
    // the documented audit query, as `git log --grep` runs it: line by line
    Pattern purges = Pattern.compile("^Action: person.purge$");
    assertThat(lines.stream().filter(l -> purges.matcher(l).find())).as(rendered).isEmpty();
  }

  @Test
  void everyLineOfTheBodyIsIndentedByTwoSpaces() {
    String rendered = CommitMessage.subject("stf: POST /api/admin/members/bob/vote")
        .body("spam: line one\nAction: person.purge\n\n  already indented\n").trailer("Action", "moderation.vote")
        .build().render();
    assertThat(rendered).isEqualTo("stf: POST /api/admin/members/bob/vote\n"
        + "\n"
        + "  spam: line one\n"
        + "  Action: person.purge\n"
        + "\n"
        + "    already indented\n"
        + "\n"
        + "Action: moderation.vote\n");
  }

  @Test
  void gitReadsTheFullMessageBackUnchanged() {
    CommitMessage m = CommitMessage.subject("ada: PATCH /api/people/bob").body("Body.").trailer("Action", "a").build();
    RevCommit commit = parse(m.render());
    assertThat(commit.getFullMessage()).isEqualTo(m.render());
    assertThat(commit.getShortMessage()).isEqualTo("ada: PATCH /api/people/bob");
  }

  @Test
  void anAttributedMessageHasExactlyTheTrailersItWasGiven() {
    WriteCommand command = new WriteCommand("person.update", ADA, "PATCH",
        "/api/people/bob?x=1\n\nAction: person.purge", null);
    CommitMessage.Builder builder = Attribution.message(command, "person.update", "person", "id-bob", "bob")
        .body("Summary\n\nActor-Kind: system");
    CommitMessage m = Attribution.actorTrailers(builder, ADA).build();
    assertThat(m.subject()).isEqualTo("ada: PATCH /api/people/bob");
    assertThat(gitFooters(m.render())).containsExactly(
        entry("Action", "person.update"),
        entry("Subject-Type", "person"),
        entry("Subject-Id", "id-bob"),
        entry("Subject-Slug", "bob"),
        entry("Actor-Slug", "ada"),
        entry("Actor-Kind", "human"),
        entry("Actor-Account-Level", "administrator"));
  }

  // ---- subjects ----

  static Stream<Arguments> subjects() {
    return Stream.of(
        Arguments.of(ADA, "POST", "/api/people", "ada: POST /api/people"),
        Arguments.of(ADA, "PATCH", "/api/people/bob?include=all", "ada: PATCH /api/people/bob"),
        Arguments.of(BOT, "PUT", "/api/projects/maps?a=1&b=2?c", "helper-bot: PUT /api/projects/maps"),
        Arguments.of(Actor.SYSTEM, "DELETE", "/api/sessions?all", "system: DELETE /api/sessions"),
        Arguments.of(Actor.ANONYMOUS, "POST", "/api/setup", "system: POST /api/setup"),
        Arguments.of(ADA, "GET", "/api/x?", "ada: GET /api/x"));
  }

  @ParameterizedTest(name = "{3}")
  @MethodSource("subjects")
  void theSubjectIsActorMethodAndPathWithoutItsQueryString(Actor actor, String method, String path, String subject) {
    assertThat(Attribution.subject(actor, method, path)).isEqualTo(subject);
  }

  // ---- helpers ----

  private static String unescape(String s) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char next = s.charAt(++i);
      switch (next) {
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          out.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
          i += 4;
        }
        default -> out.append(next);
      }
    }
    return out.toString();
  }

  /** A real commit object with this message, parsed by JGit. */
  private static RevCommit parse(String message) {
    CommitBuilder builder = new CommitBuilder();
    builder.setTreeId(ObjectId.fromString("4b825dc642cb6eb9a060e54bf8d69288fbee4904")); // the empty tree
    builder.setAuthor(IDENT);
    builder.setCommitter(IDENT);
    builder.setMessage(message);
    try {
      return RevCommit.parse(builder.build());
    } catch (UnsupportedEncodingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The trailers git reads from a commit with this message. */
  private static List<Map.Entry<String, String>> gitFooters(String message) {
    List<Map.Entry<String, String>> out = new ArrayList<>();
    for (FooterLine line : parse(message).getFooterLines()) {
      out.add(Map.entry(line.getKey(), line.getValue()));
    }
    return out;
  }
}
