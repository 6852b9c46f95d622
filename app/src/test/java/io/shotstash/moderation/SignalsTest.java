package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The roster's row-local signals (MODERATION.md → Roster signals): each negative signal, the
 * informational ones, their fixed order, attention as the number of negative ones, and the bio
 * helpers (link count, email/name mismatch, the markdown-free excerpt).
 */
class SignalsTest {
  private static final Instant NOW = Instant.parse("2026-05-01T12:00:00Z");

  /** A member with nothing to remark on. */
  private static Signals.Facts quiet() {
    return new Signals.Facts(true, true, "I build maps for the city.", "jane.doe@example.org", "Jane Doe", null, "ok",
        NOW.minus(Duration.ofDays(3650)), 12, 40, false, false, false);
  }

  private static Signals.Result of(Signals.Facts f) {
    return Signals.of(f, NOW);
  }

  private static Signals.Facts with(boolean everSignedIn, boolean hasAvatar, String bio, String email, String fullName,
      String bounce, String githubStatus, Instant githubCreatedAt, Integer repos, Integer followers,
      boolean purgedBefore,
      boolean slack, boolean footprint) {
    return new Signals.Facts(everSignedIn, hasAvatar, bio, email, fullName, bounce, githubStatus, githubCreatedAt,
        repos,
        followers, purgedBefore, slack, footprint);
  }

  @Test
  void aQuietMemberHasNoSignals() {
    Signals.Result r = of(quiet());
    assertThat(r.signals()).isEmpty();
    assertThat(r.attention()).isZero();
  }

  @Test
  void everySignalInItsFixedOrder() {
    Signals.Result r = of(with(false, false, "Buy at https://pills.example and www.pills.example", "info@pills.example",
        "Jane Doe", "hard", "gone", NOW.minus(Duration.ofDays(2)), 0, 0, true, true, true));
    assertThat(r.signals()).containsExactly("never-signed-in", "no-avatar", "bio-links:2", "email-name-mismatch",
        "email-bounced:hard", "github-gone", "github-new-account", "github-no-activity", "slug-purged-before",
        "slack-sso", "has-footprint");
    assertThat(r.attention()).isEqualTo(9);
  }

  @Test
  void noBioComesBeforeTheOthers() {
    Signals.Result r = of(with(false, false, null, "x@y.org", "Al", null, null, null, null, null, false, false, false));
    assertThat(r.signals()).containsExactly("never-signed-in", "no-avatar", "no-bio");
    assertThat(r.attention()).isEqualTo(3);
  }

  @ParameterizedTest(name = "blank bio \"{0}\"")
  @NullSource
  @ValueSource(strings = {"", "   ", "\n\t"})
  void aMissingOrBlankBioIsNoBio(String bio) {
    Signals.Facts f =
        with(true, true, bio, "jane@example.org", "Jane", null, null, null, null, null, false, false, false);
    assertThat(of(f).signals()).containsExactly("no-bio");
  }

  @Test
  void informationalSignalsDoNotCountTowardAttention() {
    Signals.Facts f = with(true, true, "bio", "jane@example.org", "Jane", null, "ok", null, 3, 3, false, true, true);
    Signals.Result r = of(f);
    assertThat(r.signals()).containsExactly("slack-sso", "has-footprint");
    assertThat(r.attention()).isZero();
  }

  @Test
  void eachNegativeSignalOnItsOwn() {
    Signals.Facts q = quiet();
    assertThat(of(with(false, true, q.bio(), q.email(), q.fullName(), null, "ok", null, 1, 1, false, false, false))
        .signals()).containsExactly("never-signed-in");
    assertThat(of(with(true, false, q.bio(), q.email(), q.fullName(), null, "ok", null, 1, 1, false, false, false))
        .signals()).containsExactly("no-avatar");
    assertThat(of(with(true, true, q.bio(), q.email(), q.fullName(), "soft", "ok", null, 1, 1, false, false, false))
        .signals()).containsExactly("email-bounced:soft");
    assertThat(of(with(true, true, q.bio(), q.email(), q.fullName(), null, "gone", null, 1, 1, false, false, false))
        .signals()).containsExactly("github-gone");
    assertThat(of(with(true, true, q.bio(), q.email(), q.fullName(), null, "ok", null, 0, 0, false, false, false))
        .signals()).containsExactly("github-no-activity");
    assertThat(of(with(true, true, q.bio(), q.email(), q.fullName(), null, "ok", null, 1, 1, true, false, false))
        .signals()).containsExactly("slug-purged-before");
  }

  @Test
  void githubStatusUnknownIsNotGone() {
    Signals.Facts q = quiet();
    assertThat(of(with(true, true, q.bio(), q.email(), q.fullName(), null, "unknown", null, null, null, false, false,
        false)).signals()).isEmpty();
  }

  @ParameterizedTest(name = "repos {0}, followers {1}: no activity = {2}")
  @CsvSource({"0, 0, true", "1, 0, false", "0, 1, false", ", 0, false", "0, , false", ", , false"})
  void githubNoActivityNeedsZeroReposAndZeroFollowers(Integer repos, Integer followers, boolean flagged) {
    Signals.Facts q = quiet();
    Signals.Facts f = with(true, true, q.bio(), q.email(), q.fullName(), null, "ok", null, repos, followers, false,
        false, false);
    assertThat(of(f).signals().contains("github-no-activity")).isEqualTo(flagged);
  }

  @ParameterizedTest(name = "GitHub account {0} days old: new = {1}")
  @CsvSource({"0, true", "1, true", "29, true", "30, false", "31, false", "3650, false"})
  void githubNewAccountIsUnderThirtyDays(long days, boolean flagged) {
    Signals.Facts q = quiet();
    Signals.Facts f =
        with(true, true, q.bio(), q.email(), q.fullName(), null, "ok", NOW.minus(Duration.ofDays(days)), 5,
            5, false, false, false);
    assertThat(of(f).signals().contains("github-new-account")).isEqualTo(flagged);
  }

  @Test
  void aMissingGithubCreationDateIsNotNew() {
    Signals.Facts q = quiet();
    assertThat(of(with(true, true, q.bio(), q.email(), q.fullName(), null, null, null, null, null, false, false, false))
        .signals()).isEmpty();
  }

  // ---- bio links ----

  @ParameterizedTest(name = "\"{0}\" has {1} links")
  @CsvSource(delimiter = '|', value = {
      "plain text | 0",
      "see http://a.example | 1",
      "see https://a.example | 1",
      "HTTPS://A.EXAMPLE and Http://b | 2",
      "www.pills.example | 1",
      "WWW.Pills | 1",
      "[shop](pills) | 1",
      "[shop](https://pills) | 2",
      "<a href=x>shop</a> | 1",
      "<A HREF=x>shop</A> | 1",
      "<abbr>no</abbr> | 0",
      "http://a https://b www.c [d](e) <a f> | 5",
      "https://a https://b https://c | 3",
      "ftp://files | 0",
      "example.com | 0",
  })
  void bioLinksCountsEachOccurrence(String bio, int links) {
    assertThat(Signals.bioLinks(bio)).isEqualTo(links);
  }

  @Test
  void bioLinksOfNoBioIsZero() {
    assertThat(Signals.bioLinks(null)).isZero();
  }

  @Test
  void theBioLinksSignalCarriesTheCount() {
    Signals.Facts q = quiet();
    Signals.Facts f = with(true, true, "a https://x b https://y c [z](w)", q.email(), q.fullName(), null, "ok", null, 1,
        1, false, false, false);
    assertThat(of(f).signals()).containsExactly("bio-links:3");
    assertThat(of(f).attention()).isEqualTo(1);
  }

  // ---- email / name mismatch ----

  @ParameterizedTest(name = "{0} / \"{1}\": mismatch = {2}")
  @CsvSource(delimiter = '|', value = {
      "jane.doe@example.org | Jane Doe | false",
      "jdoe@example.org | Jane Doe | false",
      "doe.j@example.org | Jane Doe | false",
      "JANE@EXAMPLE.ORG | jane | false",
      "jane1987@example.org | Jane Doe | false",
      "j_a_n_e.d-o-e@example.org | Jane Doe | false",
      "cheappills@example.org | Jane Doe | true",
      "info@cheappills.shop | Cheap Pills Online | true",
      "bob@example.org | Robert Smith | true",
      "sales@example.org | Best Pharmacy | true",
      "jose.nunez@example.org | José Núñez | false",
      "xyzzy@example.org | Ann Lee | true",
      "ann@example.org | Ann Lee | false",
      "leeann@example.org | Ann Lee | false",
  })
  void emailNameMismatch(String email, String name, boolean mismatch) {
    assertThat(Signals.emailNameMismatch(email, name)).isEqualTo(mismatch);
  }

  @ParameterizedTest(name = "undecided: {0} / \"{1}\"")
  @CsvSource(delimiter = '|', value = {
      " | Jane Doe",
      "jane@example.org | ",
      "no-at-sign | Jane Doe",
      "@example.org | Jane Doe",
      "jd@example.org | Jane Doe",
      "j1@example.org | Jane Doe",
      "12345@example.org | Jane Doe",
      "cheappills@example.org | Al Bo",
      "cheappills@example.org | 名前",
      "cheappills@example.org | J. D.",
  })
  void undecidedIsNoMismatch(String email, String name) {
    assertThat(Signals.emailNameMismatch(email, name)).isFalse();
  }

  @Test
  void theMismatchSignalComesFromEmailAndName() {
    Signals.Facts q = quiet();
    Signals.Facts f = with(true, true, q.bio(), "deals@example.org", "Jane Doe", null, "ok", null, 1, 1, false, false,
        false);
    assertThat(of(f).signals()).containsExactly("email-name-mismatch");
    Signals.Facts noEmail = with(true, true, q.bio(), null, "Jane Doe", null, "ok", null, 1, 1, false, false, false);
    assertThat(of(noEmail).signals()).isEmpty();
  }

  // ---- the bio excerpt ----

  @ParameterizedTest(name = "excerpt of \"{0}\"")
  @CsvSource(delimiter = '|', value = {
      "plain bio | plain bio",
      "**bold** and _italic_ and `code` | bold and italic and code",
      "~~struck~~ text | struck text",
      "[Cheap Pills](https://pills.example) here | Cheap Pills here",
      "![logo](https://x/logo.png) Shop | logo Shop",
      "<a href=\"https://x\">Shop</a> now | Shop now",
      "<b>Bold</b> <i>it</i> | Bold it",
      "# Heading | Heading",
      "### Third | Third",
      "> quoted | quoted",
      "- item one | item one",
      "* item two | item two",
      "+ item three | item three",
      "1. first | first",
      "many     spaces | many spaces",
      "'  padded  ' | padded",
  })
  void theExcerptStripsMarkdown(String bio, String excerpt) {
    assertThat(Signals.bioExcerpt(bio)).isEqualTo(excerpt);
  }

  @Test
  void theExcerptJoinsLinesAndStripsEachLine() {
    assertThat(Signals.bioExcerpt("# Jane\n\n- maps\n- *transit*\n> quote\n\nMore [here](https://x).")).isEqualTo(
        "Jane maps transit quote More here.");
  }

  @Test
  void theExcerptIsAboutTheFirst160Characters() {
    String exact = "a".repeat(160);
    assertThat(Signals.bioExcerpt(exact)).isEqualTo(exact);
    String longer = "word ".repeat(100);
    String excerpt = Signals.bioExcerpt(longer);
    assertThat(excerpt).hasSizeLessThanOrEqualTo(160).endsWith("…").startsWith("word word");
    assertThat(Signals.bioExcerpt("b".repeat(161))).isEqualTo("b".repeat(159) + "…");
  }

  @Test
  void theExcerptCountsTextAfterStripping() {
    // 150 characters of text inside a long link: under 160 once the URL is gone
    String text = "t".repeat(150);
    assertThat(Signals.bioExcerpt("[" + text + "](https://example.com/" + "p".repeat(100) + ")")).isEqualTo(text);
  }

  @Test
  void noBioNoExcerpt() {
    assertThat(Signals.bioExcerpt(null)).isNull();
    assertThat(Signals.bioExcerpt("")).isEmpty();
  }
}
