package io.shotstash.people;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.publicdata.records.SpamPurge;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class OAuthRulesTest {

  // ---- PKCE ----

  @Test
  void theS256ChallengeMatchesRfc7636AppendixB() {
    assertThat(OAuthRules.s256Challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"))
        .isEqualTo("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"tooShort", "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjX", // 42 characters
      "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjX+", "dBjftJeZ4CVP mB92K27uhbUJU1p1r_wW1gFWFOEjXk"})
  void verifiersOutsideRfc7636AreRefused(String verifier) {
    assertThat(OAuthRules.isVerifier(verifier)).isFalse();
    assertThatThrownBy(() -> OAuthRules.s256Challenge(verifier)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void verifiersOf43To128UnreservedCharactersAreAccepted() {
    assertThat(OAuthRules.isVerifier("a".repeat(43))).isTrue();
    assertThat(OAuthRules.isVerifier("A-._~".repeat(25) + "abc")).isTrue(); // 128
    assertThat(OAuthRules.isVerifier("a".repeat(129))).isFalse();
  }

  @Test
  void theAuthorizeUrlCarriesEveryParameterEncoded() {
    String url = OAuthRules.authorizeUrl("https://github.example", "client id",
        "http://127.0.0.1:3005/api/auth/github/callback", "st+ate/=", "challenge");
    URI uri = URI.create(url);
    assertThat(uri.getScheme() + "://" + uri.getHost() + uri.getPath())
        .isEqualTo("https://github.example/login/oauth/authorize");
    assertThat(uri.getRawQuery()).isEqualTo("client_id=client%20id"
        + "&redirect_uri=http%3A%2F%2F127.0.0.1%3A3005%2Fapi%2Fauth%2Fgithub%2Fcallback"
        + "&state=st%2Bate%2F%3D&code_challenge=challenge&code_challenge_method=S256"
        + "&scope=read%3Auser%20user%3Aemail");
  }

  // ---- return paths ----

  @ParameterizedTest
  @ValueSource(strings = {"/", "/projects", "/people/ada?tab=projects#top", "/a/b/c.html", "/path:with:colons",
      "/%2F%2Fevil.com"})
  void pathsOnThisSiteAreKept(String path) {
    assertThat(OAuthRules.safeReturnPath(path)).isEqualTo(path);
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"//evil.com", "///evil.com", "/\\evil.com", "\\\\evil.com", "https://evil.com",
      "http:/evil.com", "javascript:alert(1)", "evil.com", "projects", "/\t/evil.com", "/\n/evil.com",
      "/ space", "/caf\u00e9", "/a\\b", "/\u0000", " /projects"})
  void anythingElseBecomesTheRoot(String path) {
    assertThat(OAuthRules.safeReturnPath(path)).isEqualTo("/");
  }

  @Test
  void overlongReturnPathsBecomeTheRoot() {
    assertThat(OAuthRules.safeReturnPath("/" + "a".repeat(2047))).hasSize(2048);
    assertThat(OAuthRules.safeReturnPath("/" + "a".repeat(2048))).isEqualTo("/");
  }

  // ---- slugs and names ----

  @ParameterizedTest
  @CsvSource({
      "octocat, octocat",
      "Octo-Cat, octo-cat",
      "mona--lisa, mona-lisa",
      "-edge-, edge",
      "first.last_name, first-last-name",
      "ab, ab",
      "x, x-2", // one character is not a valid slug: the first suffix makes it one
      "admin, admin-2", // reserved
      "Login, login-2", // reserved, in any case
      "'', member",
      "___, member",
  })
  void aSlugComesFromTheLogin(String login, String slug) {
    assertThat(OAuthRules.slugFromLogin(login, s -> false)).isEqualTo(slug);
  }

  @Test
  void takenSlugsGetTheNextFreeSuffix() {
    Set<String> taken = Set.of("hubot", "hubot-2", "hubot-3");
    assertThat(OAuthRules.slugFromLogin("Hubot", taken::contains)).isEqualTo("hubot-4");
    assertThat(OAuthRules.slugFromLogin("hubot-2", taken::contains)).isEqualTo("hubot-2-2");
  }

  @Test
  void longLoginsAreCutToFitTheSuffix() {
    String login = "a".repeat(49) + "-" + "b".repeat(20);
    String slug = OAuthRules.slugFromLogin(login, s -> false);
    assertThat(slug).isEqualTo("a".repeat(49)); // cut to 50, then the trailing dash goes
    String suffixed = OAuthRules.slugFromLogin("c".repeat(60), s -> s.equals("c".repeat(50)));
    assertThat(suffixed).isEqualTo("c".repeat(48) + "-2").hasSize(50);
    assertThat(PersonRules.slugProblem(suffixed)).isNull();
  }

  @Test
  void theFullNameIsTheGitHubNameCleanedOrTheLogin() {
    assertThat(OAuthRules.fullNameFrom("  Mona   Lisa Octocat ", "octocat")).isEqualTo("Mona Lisa Octocat");
    assertThat(OAuthRules.fullNameFrom(null, "octocat")).isEqualTo("octocat");
    assertThat(OAuthRules.fullNameFrom(" \t ", "octocat")).isEqualTo("octocat");
    assertThat(OAuthRules.fullNameFrom("Mona\u0000\nLisa", "octocat")).isEqualTo("Mona Lisa");
    assertThat(OAuthRules.fullNameFrom("m".repeat(150), "octocat")).hasSize(100);
    String emoji = "m".repeat(99) + "\uD83D\uDE00"; // the last character would be cut in half
    assertThat(OAuthRules.fullNameFrom(emoji, "octocat")).isEqualTo("m".repeat(99));
    assertThat(PersonRules.fullNameProblem(OAuthRules.fullNameFrom("x\u0007y", "octocat"))).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"octocat", "Octo-Cat", "a", "user_corp", "first.last", "0day"})
  void gitHubLoginsAreAccepted(String login) {
    assertThat(OAuthRules.isGitHubLogin(login)).isTrue();
  }

  @ParameterizedTest
  @NullAndEmptySource
  @ValueSource(strings = {"-lead", "has space", "slash/y", "ünï", "new\nline"})
  void otherLoginsAreRefused(String login) {
    assertThat(OAuthRules.isGitHubLogin(login)).isFalse();
  }

  // ---- blocked accounts ----

  private static SpamPurge purge(Long githubUserId, String githubLogin, boolean blocksSignIn, Instant unblockedAt) {
    return new SpamPurge("p1", "person-1", "spammer", "Spammer", githubUserId, githubLogin, "human-ada", null,
        "spam", List.of(), List.of(), "abc", Instant.parse("2025-01-01T00:00:00Z"), blocksSignIn, unblockedAt,
        unblockedAt == null ? null : "ada");
  }

  @Test
  void aRecordWithAnIdBlocksThatIdOnly() {
    SpamPurge r = purge(42L, "Spammer", true, null);
    assertThat(OAuthRules.blocks(r, 42, "renamed")).isTrue();
    assertThat(OAuthRules.blocks(r, 43, "spammer")).isFalse(); // someone else took the login since
  }

  @Test
  void aRecordWithoutAnIdBlocksTheLoginInAnyCase() {
    SpamPurge r = purge(null, "Spammer", true, null);
    assertThat(OAuthRules.blocks(r, 7, "sPAMMER")).isTrue();
    assertThat(OAuthRules.blocks(r, 7, "spammer2")).isFalse();
    assertThat(OAuthRules.blocks(purge(null, null, true, null), 7, "spammer")).isFalse();
  }

  @Test
  void onlyABlockInForceBlocks() {
    assertThat(OAuthRules.blocks(purge(42L, "spammer", false, null), 42, "spammer")).isFalse();
    assertThat(OAuthRules.blocks(purge(42L, "spammer", true, Instant.parse("2025-02-01T00:00:00Z")), 42, "spammer"))
        .isFalse();
  }

  @Test
  void blockForFindsTheFirstRecordThatBlocks() {
    SpamPurge lifted = purge(42L, "spammer", true, Instant.parse("2025-02-01T00:00:00Z"));
    SpamPurge inForce = purge(null, "spammer", true, null);
    assertThat(OAuthRules.blockFor(List.of(lifted, inForce), 42, "spammer")).contains(inForce);
    assertThat(OAuthRules.blockFor(List.of(lifted), 42, "spammer")).isEmpty();
    assertThat(OAuthRules.blockFor(List.of(), 42, "spammer")).isEmpty();
  }
}
