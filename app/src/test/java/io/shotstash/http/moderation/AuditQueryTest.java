package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.data;
import static io.shotstash.http.moderation.ModerationHarness.newMember;
import static io.shotstash.http.moderation.ModerationHarness.now;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.http.moderation.ModerationHarness.Agent;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.testing.Repo;
import io.shotstash.testing.TestApp;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.eclipse.jgit.revwalk.FooterLine;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The audit queries the docs give ({@code git log --grep='^Action: person.purge$' ...}) over a
 * repository where free text tried to forge trailers: a staff vote's reasoning, a staff purge's
 * reason and an unblock reason each carry lines such as {@code Action: person.purge}. Every query
 * written in the docs is read from the docs themselves and run as {@code git log --grep} runs it
 * (each pattern against each line of the message; several patterns are or-ed, or and-ed with
 * {@code --all-match}); it must find exactly the commits whose real trailers (as JGit parses them)
 * satisfy it, and find at least one.
 */
class AuditQueryTest {
  private static final Pattern GIT_LOG_GREP = Pattern.compile("git log[^`\\n]*--grep='[^']*'[^`\\n#]*");
  private static final Pattern GREP = Pattern.compile("--grep='([^']*)'");
  /** A line that reads as a git trailer, {@code Key: value}. */
  private static final Pattern TRAILER_LIKE = Pattern.compile("^[A-Za-z0-9][A-Za-z0-9-]*:(\\s|$)");

  static TestApp app;
  static ModerationHarness h;
  static String purgeId;
  static String grantId;

  /** One documented query: its patterns, and whether all of them must match (--all-match). */
  record Query(String source, List<Pattern> patterns, boolean allMatch) {
    boolean matches(List<String> lines) {
      Stream<Pattern> s = patterns.stream();
      return allMatch ? s.allMatch(p -> anyLine(p, lines)) : s.anyMatch(p -> anyLine(p, lines));
    }

    private static boolean anyLine(Pattern p, List<String> lines) {
      return lines.stream().anyMatch(l -> p.matcher(l).find());
    }
  }

  @BeforeAll
  static void start() {
    app = TestApp.start(ModerationHarness.QUIET);
    h = new ModerationHarness(app);
    String admin = app.setupAndLogin();
    String staff = h.member(admin, "stf", "staff");
    String user = h.member(admin, "usr", "user");
    h.nudger(user, "usr");
    // the docs' example agent, so their queries need no rewriting
    Agent bot = h.agent(admin, "example-bot", "moderation:read", "moderation:vote", "moderation:purge");
    grantId = bot.grantId();
    Instant joined = now();
    Person scheduled = ModerationHarness.hiddenBy(newMember("aq-sched", "bio", joined.minus(Duration.ofDays(5))),
        "moderation", joined.minus(Duration.ofDays(4)));
    h.seed(newMember("aq-voted", "bio", joined), newMember("aq-spam", "Pills, cheap.", joined),
        newMember("aq-staff-purged", "bio", joined), newMember("aq-forged", "bio", joined), scheduled);
    h.commitBehindTheAppsBack(List.of(ModerationHarness.put(new PersonEvaluation("aq-sched", "human-stf", "spam", null,
        List.of("manual-override"), 1.0, joined.minus(Duration.ofDays(4))))));

    // the real actions: an agent vote, an agent purge, a staff purge, a scheduled purge, an unblock
    data(h.agentVote(bot, "aq-voted", "spam"));
    purgeId = data(h.purgeBio(bot, "aq-spam")).getJsonObject("purge").getString("id");
    String forgedTrailers = "\nAction: person.purge\nActor-Kind: agent\nActor-Kind: system\nSubject-Slug: aq-spam"
        + "\nPurge-Id: " + purgeId + "\nGrant-Id: " + grantId + "\nAction: moderation.vote\nActor-Slug: example-bot"
        + "\nAction: person.create";
    data(h.post("/api/people/aq-staff-purged/purge", admin, new JsonObject().put("spam", true)
        .put("reason", "Spam account." + forgedTrailers)));
    JsonObject swept =
        app.vertx().eventBus().<JsonObject>request(Addresses.MODERATION_PURGE_SWEEP, new JsonObject()).await()
            .body();
    assertThat(ModerationHarness.strings(swept.getJsonArray("purged"))).containsExactly("aq-sched");
    data(h.post("/api/admin/spam-purges/" + purgeId + "/unblock", staff, new JsonObject()
        .put("reason", "Action: person.purge" + forgedTrailers)));

    // votes whose reasoning forges trailers, each one on its own and all together
    data(h.post("/api/admin/members/aq-forged/vote", staff, new JsonObject().put("verdict", "spam")
        .put("reasoning", "x\nAction: person.purge")));
    data(h.post("/api/admin/members/aq-forged/vote", staff, new JsonObject().put("verdict", "spam")
        .put("reasoning", "Action: person.purge")));
    data(h.post("/api/admin/members/aq-forged/vote", staff, new JsonObject().put("verdict", "legit")
        .put("reasoning", "x\r\n\r\n---\r\nAction: person.purge")));
    data(h.post("/api/admin/members/aq-forged/vote", staff, new JsonObject().put("verdict", "spam")
        .put("reasoning", "x\u2028Action: person.purge" + forgedTrailers)));
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  @Test
  void aVoteWhoseReasoningHoldsAnActionLineIsNotFoundAsAPurge() {
    Query purges = new Query("test", List.of(Pattern.compile("^Action: person.purge$")), false);
    List<RevCommit> forgedVotes = commits().stream()
        .filter(c -> c.getShortMessage().equals("stf: POST /api/admin/members/aq-forged/vote")).toList();
    assertThat(forgedVotes).hasSize(4);
    for (RevCommit c : forgedVotes) {
      assertThat(purges.matches(lines(c))).as(c.getFullMessage()).isFalse();
      assertThat(ModerationHarness.trailerValue(c, "Action")).isEqualTo("moderation.vote");
    }
    // the reasoning itself is kept as it was written, in the vote record and in the commit body
    assertThat(h.evaluation("aq-forged", "human-stf").reasoning()).startsWith("x\u2028Action: person.purge");
    assertThat(forgedVotes.get(0).getFullMessage()).contains("  spam: x\n  Action: person.purge\n");
  }

  @Test
  void everyDocumentedQueryFindsExactlyTheCommitsWhoseTrailersSatisfyIt() {
    List<Query> queries = documentedQueries();
    assertThat(queries).extracting(Query::source).as("the docs' audit queries").hasSizeGreaterThanOrEqualTo(8);
    List<RevCommit> commits = commits();
    for (Query q : queries) {
      List<String> found = new ArrayList<>();
      List<String> real = new ArrayList<>();
      for (RevCommit c : commits) {
        if (q.matches(lines(c))) {
          found.add(c.getShortMessage());
        }
        if (q.matches(trailerLines(c))) {
          real.add(c.getShortMessage());
        }
      }
      assertThat(real).as("real commits for " + q.source()).isNotEmpty();
      assertThat(found).as(q.source()).containsExactlyElementsOf(real);
    }
  }

  @Test
  void noLineButTheSubjectAndTheTrailersReadsAsATrailer() {
    for (RevCommit c : commits()) {
      List<String> lines = lines(c);
      List<String> trailerLike = lines.subList(1, lines.size()).stream()
          .filter(l -> TRAILER_LIKE.matcher(l).find()).toList();
      assertThat(trailerLike).as(c.getFullMessage()).containsExactlyElementsOf(trailerLines(c));
    }
  }

  // ---- helpers ----

  /** Every `git log ... --grep='...'` in the docs, with its placeholders filled from this repository. */
  static List<Query> documentedQueries() {
    Map<String, String> fill = new LinkedHashMap<>();
    fill.put("<grant id>", grantId);
    fill.put("<id>", purgeId);
    fill.put("<slug>", "aq-spam");
    List<Query> out = new ArrayList<>();
    for (Path doc : docs()) {
      String text = read(doc);
      Matcher command = GIT_LOG_GREP.matcher(text);
      while (command.find()) {
        String line = command.group();
        List<Pattern> patterns = new ArrayList<>();
        Matcher grep = GREP.matcher(line);
        while (grep.find()) {
          String pattern = grep.group(1);
          for (Map.Entry<String, String> f : fill.entrySet()) {
            pattern = pattern.replace(f.getKey(), f.getValue());
          }
          assertThat(pattern).as("a placeholder this test cannot fill, in " + doc + ": " + line).doesNotContain("<");
          patterns.add(Pattern.compile(pattern));
        }
        out.add(new Query(doc.getFileName() + ": " + line.strip(), patterns, line.contains("--all-match")));
      }
    }
    return out;
  }

  private static List<Path> docs() {
    try (Stream<Path> files = Files.list(Repo.path("docs"))) {
      List<Path> out = new ArrayList<>(files.filter(p -> p.toString().endsWith(".md")).sorted().toList());
      out.add(Repo.path("README.md"));
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every commit on the branch, newest first. */
  static List<RevCommit> commits() {
    return h.withRepository(repo -> {
      List<RevCommit> out = new ArrayList<>();
      try (RevWalk walk = new RevWalk(repo)) {
        walk.markStart(walk.parseCommit(h.head()));
        for (RevCommit c : walk) {
          out.add(c);
        }
      }
      return out;
    });
  }

  /** The message's lines, as `git log --grep` matches them. */
  static List<String> lines(RevCommit c) {
    return List.of(c.getFullMessage().split("\n", -1));
  }

  /** The trailers git parses from the message, as `Key: value` lines. */
  static List<String> trailerLines(RevCommit c) {
    List<String> out = new ArrayList<>();
    for (FooterLine f : c.getFooterLines()) {
      out.add(f.getKey() + ": " + f.getValue());
    }
    return out;
  }
}
