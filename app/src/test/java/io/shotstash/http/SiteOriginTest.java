package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The site's origin as browsers see it: the public-origin setting, or the scheme trusted proxies report. */
class SiteOriginTest {

  @ParameterizedTest(name = "origin ok: {0}")
  @ValueSource(strings = {"https://media.example.org", "http://localhost:3005", "https://media.example.org/",
      "HTTPS://Media.Example.ORG", "https://10.0.0.5:8443", "https://[::1]:3005"})
  void originsWithSchemeAndHost(String raw) {
    assertThat(SiteOrigin.originProblem(raw)).isNull();
  }

  @ParameterizedTest(name = "origin refused: {0}")
  @ValueSource(strings = {"media.example.org", "ftp://media.example.org", "https://media.example.org/app",
      "https://media.example.org?x=1", "https://user@media.example.org", "https://", "https://exa mple.org", ""})
  void anythingElseIsNotAnOrigin(String raw) {
    assertThat(SiteOrigin.originProblem(raw)).isNotNull();
  }

  @Test
  void originsAreNormalisedAsBrowsersSendThem() {
    assertThat(SiteOrigin.normalizeOrigin(" HTTPS://Media.Example.org:443/ ")).isEqualTo("https://media.example.org");
    assertThat(SiteOrigin.normalizeOrigin("http://x.example:80")).isEqualTo("http://x.example");
    assertThat(SiteOrigin.normalizeOrigin("https://x.example:8443")).isEqualTo("https://x.example:8443");
  }

  @ParameterizedTest(name = "proxy ok: {0}")
  @ValueSource(strings = {"127.0.0.1", "10.0.0.0/8", "172.16.0.0/12", "::1", "fd00::/8", "0.0.0.0/0", " 192.168.1.10 "})
  void proxiesAreAddressesOrRanges(String entry) {
    assertThat(SiteOrigin.proxyProblem(entry)).isNull();
  }

  @ParameterizedTest(name = "proxy refused: {0}")
  @ValueSource(strings = {"proxy.example.org", "localhost", "10.0.0.0/33", "256.1.1.1", "1.2.3", "::1/129",
      "10.0.0.1/x", ""})
  void namesAndBadRangesAreNotProxies(String entry) {
    assertThat(SiteOrigin.proxyProblem(entry)).isNotNull();
  }

  @Test
  void onlyATrustedPeerMayNameTheScheme() {
    SiteOrigin site = new SiteOrigin(null, List.of("127.0.0.1", "10.1.0.0/16", "fd00::/8"));
    assertThat(site.scheme(false, "127.0.0.1", "https")).isEqualTo("https");
    assertThat(site.scheme(false, "10.1.200.3", "HTTPS, http")).isEqualTo("https");
    assertThat(site.scheme(false, "fd00::17", "https")).isEqualTo("https");
    assertThat(site.scheme(false, "::ffff:127.0.0.1", "https")).as("IPv4-mapped").isEqualTo("https");
    assertThat(site.scheme(false, "10.2.0.1", "https")).as("outside the range").isEqualTo("http");
    assertThat(site.scheme(false, "203.0.113.9", "https")).as("anyone may send the header").isEqualTo("http");
    assertThat(site.scheme(false, "127.0.0.1", "gopher")).isEqualTo("http");
    assertThat(site.scheme(false, "127.0.0.1", null)).isEqualTo("http");
    assertThat(site.scheme(true, "203.0.113.9", null)).as("TLS to us").isEqualTo("https");
    assertThat(SiteOrigin.direct().scheme(false, "127.0.0.1", "https")).as("no proxy trusted").isEqualTo("http");
    assertThat(site.trusted("not an address")).isFalse();
  }

  @Test
  void thePublicOriginWinsOverWhatTheRequestCarries() {
    SiteOrigin site = new SiteOrigin("https://media.example.org", List.of());
    assertThat(site.origin("http", "10.0.0.11:3005")).isEqualTo("https://media.example.org");
    assertThat(site.secure("http")).isTrue();
    SiteOrigin plain = new SiteOrigin("http://media.internal", List.of());
    assertThat(plain.secure("https")).isFalse();
  }

  @Test
  void withoutAPublicOriginTheRequestsSchemeAndHostAreTheOrigin() {
    SiteOrigin site = SiteOrigin.direct();
    assertThat(site.origin("http", "127.0.0.1:3005")).isEqualTo("http://127.0.0.1:3005");
    assertThat(site.origin("https", "Media.Example.org:443")).isEqualTo("https://media.example.org");
    assertThat(site.origin("http", null)).isNull();
    assertThat(site.secure("https")).isTrue();
    assertThat(site.secure("http")).isFalse();
  }

  @Test
  void sameOriginComparesTheWholeOrigin() {
    String site = "https://media.example.org";
    assertThat(SiteOrigin.sameOrigin("https://media.example.org", site)).isTrue();
    assertThat(SiteOrigin.sameOrigin("HTTPS://Media.Example.org:443", site)).isTrue();
    assertThat(SiteOrigin.sameOrigin("http://media.example.org", site)).as("another scheme").isFalse();
    assertThat(SiteOrigin.sameOrigin("https://media.example.org.evil.example", site)).isFalse();
    assertThat(SiteOrigin.sameOrigin("https://media.example.org:8443", site)).isFalse();
    assertThat(SiteOrigin.sameOrigin("null", site)).isFalse();
    assertThat(SiteOrigin.sameOrigin(null, site)).isFalse();
    assertThat(SiteOrigin.sameOrigin(site, null)).isFalse();
  }

  @Test
  void aBadProxyEntryIsRefusedAtConstruction() {
    assertThatThrownBy(() -> new SiteOrigin(null, List.of("proxy.example.org")))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void withoutSettingsAnHttpsPageOfThisHostCountsAsThisSite() {
    // the nginx set-up before the settings existed: the app sees http, the browser is on https
    SiteOrigin site = SiteOrigin.direct();
    assertThat(site.sameOrigin("https://media.example.org", "http", "media.example.org")).isTrue();
    assertThat(site.sameOrigin("http://media.example.org", "http", "media.example.org")).isTrue();
    assertThat(site.sameOrigin("https://evil.example", "http", "media.example.org")).isFalse();
    assertThat(site.sameOrigin("https://media.example.org:8443", "http", "media.example.org")).isFalse();
    // once https is known, a plain-http page is not this site
    SiteOrigin proxied = new SiteOrigin(null, List.of("127.0.0.1"));
    assertThat(proxied.sameOrigin("http://media.example.org", "https", "media.example.org")).isFalse();
    SiteOrigin named = new SiteOrigin("https://media.example.org", List.of());
    assertThat(named.sameOrigin("https://media.example.org", "http", "10.0.0.11:3005")).isTrue();
    assertThat(named.sameOrigin("http://10.0.0.11:3005", "http", "10.0.0.11:3005")).isFalse();
    assertThat(SiteOrigin.direct().sameOrigin(null, "http", "media.example.org")).isFalse();
  }
}
