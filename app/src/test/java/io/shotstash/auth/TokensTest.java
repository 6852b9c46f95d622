package io.shotstash.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TokensTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "ss_", "agent_", "wk-"})
  void aTokenIsThePrefixThen43Base64UrlCharacters(String prefix) {
    String token = Tokens.random(prefix);
    assertThat(token).startsWith(prefix).hasSize(prefix.length() + 43);
    String secret = token.substring(prefix.length());
    assertThat(secret).matches("[A-Za-z0-9_-]{43}");
    assertThat(Base64.getUrlDecoder().decode(secret)).hasSize(32);
  }

  @Test
  void tokensDiffer() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      assertThat(seen.add(Tokens.random("t_"))).isTrue();
    }
  }

  @Test
  void sha256IsThirtyTwoBytes() {
    assertThat(Tokens.sha256("")).hasSize(32);
    assertThat(Tokens.sha256(Tokens.random("x_"))).hasSize(32);
  }

  @ParameterizedTest
  @CsvSource({
      "'',  e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
      "abc, ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"})
  void sha256MatchesTheKnownDigests(String input, String hex) {
    assertThat(HexFormat.of().formatHex(Tokens.sha256(input))).isEqualTo(hex);
  }

  @Test
  void sha256IsOfTheUtf8Bytes() throws Exception {
    byte[] utf8 = {(byte) 0xC3, (byte) 0xA9}; // é
    assertThat(Tokens.sha256("\u00e9")).isEqualTo(MessageDigest.getInstance("SHA-256").digest(utf8));
  }

  @Test
  void sameSecretComparesValues() {
    String token = Tokens.random("ss_");
    assertThat(Tokens.sameSecret(token, new String(token.toCharArray()))).isTrue();
    assertThat(Tokens.sameSecret(token, token + "x")).isFalse();
    assertThat(Tokens.sameSecret(token, Tokens.random("ss_"))).isFalse();
    assertThat(Tokens.sameSecret("", "")).isTrue();
  }

  @Test
  void sameSecretOfNullIsFalse() {
    assertThat(Tokens.sameSecret(null, "x")).isFalse();
    assertThat(Tokens.sameSecret("x", null)).isFalse();
    assertThat(Tokens.sameSecret(null, null)).isFalse();
  }
}
