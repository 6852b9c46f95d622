package io.shotstash.moderation;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The URL detector (the moderation API, "A URL is any of"): a scheme, {@code www.} at a word
 * start, a bare domain (lowercase TLD, or a common TLD in any case), a defanged dot between word
 * characters. Ordinary prose passes. Control characters, line breaks included, are found apart.
 */
class UrlDetectorTest {

  @ParameterizedTest(name = "scheme: {0}")
  @ValueSource(strings = {
      "https://x",
      "see https://x for more",
      "http://x",
      "HTTPS://X",
      "Http://Example",
      "ftp://files",
      "ftp://",
      "hxxp://pills",
      "hxxps://pills",
      "HXXPS://PILLS",
      "custom name://thing",
      "name://",
      "telegram://join",
      "svn+ssh://host",
      "web.cal://feed",
      "x-y://z",
      "(https://x)",
      "\"https://x\"",
      "link:https://x",
      "a_https://x",
      "go to meet://now",
      "foo.https://pills",
      "v1.https://pills",
  })
  void aSchemeIsAUrl(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isTrue();
    assertThat(UrlDetector.firstUrl(text)).as(text).isNotNull();
  }

  @ParameterizedTest(name = "scheme after a digit: {0}")
  @ValueSource(strings = {"2https://pills", "Step 1-https://pills", "call 555-hxxps://pills"})
  void aSchemeAfterADigitIsStillAUrl(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isTrue();
  }

  @ParameterizedTest(name = "www at a word start: {0}")
  @ValueSource(strings = {
      "www.example",
      "WWW.Example",
      "Www.Nice",
      "visit www.Pharmacy today",
      "(www.Shop)",
      "\"www.Store\"",
      "www.x",
      "start www.",
      "WwW.Whatever",
  })
  void wwwAtTheStartOfAWordIsAUrl(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isTrue();
  }

  @ParameterizedTest(name = "www inside a word: {0}")
  @ValueSource(strings = {
      "awww.Nice",
      "awww. nice",
      "so awww.Cute",
      "Bowww.Wow",
      "twww.X",
  })
  void wwwInsideAWordIsNotTheWwwRule(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isFalse();
  }

  @Test
  void wwwInsideAWordFollowedByALowercaseLabelIsStillABareDomain() {
    // "awww.nice" is not the www rule, but "nice" is a lowercase TLD: a bare domain by the seed's own rule
    assertThat(UrlDetector.firstUrl("awww.nice")).isEqualTo("awww.nice");
  }

  @ParameterizedTest(name = "bare lowercase domain: {0}")
  @ValueSource(strings = {
      "cheap-pills.shop",
      "buy at cheap-pills.shop now",
      "a.b.example",
      "sub.domain.io",
      "example.com",
      "example.org.",
      "example.co.uk",
      "my_site.xyz",
      "x1.pharmacy",
      "pills4you.online",
      "a-b-c.de",
      "shop.example/path?q=1",
      "mail me at spam@pills.biz",
      "end of sentence cheap.pills.",
      "(cheap.pills)",
      "123.abc",
      "9gag.tv",
      "foo.bar.baz.qux",
  })
  void aBareDomainWithALowercaseTldIsAUrl(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isTrue();
  }

  @ParameterizedTest(name = "non-ASCII letter at the dot: {0}")
  @ValueSource(strings = {"caf\u00e9.com", "\u00fcn\u00ef.shop", "pill\u015b[.]com"})
  void aDomainWithANonAsciiLetterAtTheDotIsAUrl(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isTrue();
  }

  @ParameterizedTest(name = "common TLD in any case: {0}")
  @ValueSource(strings = {
      "Cheap-Pills.SHOP",
      "EXAMPLE.COM",
      "Example.Com",
      "Example.ORG",
      "MySite.Net",
      "PILLS.RU",
      "Store.Info",
      "Brand.IO",
      "Spam.XYZ",
      "Gov.GOV",
      "Shop.BIZ",
      "A.B.Com",
  })
  void aCommonTldCountsInAnyCase(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isTrue();
  }

  @ParameterizedTest(name = "defanged dot: {0}")
  @ValueSource(strings = {
      "example[.]com",
      "example(.)com",
      "example{.}com",
      "example[dot]com",
      "example(dot)com",
      "Example[.]COM",
      "EXAMPLE[DOT]SHOP",
      "cheap-pills[.]Pharmacy",
      "pills(.)Store",
      "a[.]b",
      "x{.}Y",
      "visit pills[dot]Shop today",
      "1[.]2",
  })
  void aDefangedDotBetweenWordCharactersIsAUrl(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isTrue();
  }

  /**
   * Dots that look like a full stop, and that IDNA (RFC 3490, UTS #46) reads as the label
   * separator: a browser opens {@code cheap-pills\u3002shop} as {@code cheap-pills.shop}. Each
   * text is checked with every one of them.
   */
  @ParameterizedTest(name = "look-alike dot U+{1} in: {0}")
  @CsvSource(delimiter = '|', value = {
      "cheap-pills·shop | 2024",
      "cheap-pills·shop | FF0E",
      "cheap-pills·shop | 3002",
      "cheap-pills·shop | FF61",
      "buy at cheap-pills·shop now | 3002",
      "Cheap-Pills·SHOP | FF0E",
      "EXAMPLE·COM | 2024",
      "www·Pharmacy | FF0E",
      "visit www·pills today | 3002",
      "a·b·example | FF61",
      "sub·domain·io | 2024",
      "pills·shop.Then | FF0E",
  })
  void aLookAlikeDotIsADot(String text, String codePoint) {
    String withDot = text.replace('·', (char) Integer.parseInt(codePoint, 16));
    assertThat(UrlDetector.containsUrl(withDot)).as(withDot).isTrue();
  }

  @ParameterizedTest(name = "compatibility form: {0}")
  @ValueSource(strings = {
      "\uff48\uff54\uff54\uff50\uff53\uff1a\uff0f\uff0fx", // fullwidth "https://x"
      "ｗｗｗ．pills",
      "pills．ｓｈｏｐ",
      "pills\u2024\uff53\uff48\uff4f\uff50",
  })
  void compatibilityFormsAreReadAsWhatTheyLookLike(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isTrue();
  }

  @ParameterizedTest(name = "look-alike dot in prose: {0}")
  @ValueSource(strings = {
      "e\u3002g\u3002 this",
      "the U\uff0eS\uff0e office",
      "version 1\u20242\u20243",
      "spam\uff61Then",
      "end\u3002 Next",
  })
  void aLookAlikeDotInProseIsStillProse(String text) {
    assertThat(UrlDetector.containsUrl(text)).as(text).isFalse();
  }

  /**
   * Decision: an ideographic full stop between two words reads as a dot, as IDNA reads it, so a
   * run of CJK text with no space after the stop is a bare domain when the word after it could be
   * a TLD (two or more letters; {@code .公司} and {@code .中国} are real ones). A single character
   * after the stop is not.
   */
  @Test
  void anIdeographicFullStopBetweenWordsIsADot() {
    assertThat(UrlDetector.containsUrl("\u5783\u573e\u3002\u516c\u53f8")).isTrue();
    assertThat(UrlDetector.containsUrl("\u6587\u3002\u6587\u3002")).isFalse();
  }

  @ParameterizedTest(name = "prose: {0}")
  @ValueSource(strings = {
      "e.g.",
      "e.g., this",
      "i.e.",
      "i.e. that one",
      "U.S.",
      "the U.S. office",
      "spam.Then",
      "Posted spam.Then left.",
      "version 1.2.3",
      "v2.0.1-beta",
      "3.14",
      "pi is 3.14159",
      "Mr. Smith",
      "end. Next",
      "A.B.C.",
      "No.5",
      "e.g.,",
      "Dr.Who",
      "went home.In the end",
      "etc.",
      "Ph.D.",
      "a.m. and p.m. shifts",
      "U.K.",
      "1.0",
      "release 10.4.2",
      "It was 9.30 a.m.",
      "J.R.R. Tolkien",
      "Vol.2",
      "bio says buy now",
      "Business name; GitHub account 3h old; promotional link added to bio 6 min after sign-up.",
      "a link to a pharmacy shop",
      "a disposable email domain",
      "colon: not a scheme",
      "ratio 3:1",
      "time 10:30",
      "brackets [.] alone",
      "dot (dot) alone",
      "example [.] com",
      "",
  })
  void ordinaryProsePasses(String text) {
    assertThat(UrlDetector.firstUrl(text)).as(text).isNull();
    assertThat(UrlDetector.containsUrl(text)).as(text).isFalse();
  }

  @ParameterizedTest
  @NullSource
  void nullIsNeitherAUrlNorAControlCharacter(String text) {
    assertThat(UrlDetector.containsUrl(text)).isFalse();
    assertThat(UrlDetector.hasControlCharacter(text)).isFalse();
  }

  @ParameterizedTest(name = "first URL of \"{0}\" is \"{1}\"")
  @CsvSource(delimiter = '|', value = {
      "see https://x now | https://",
      "buy at cheap-pills.shop now | cheap-pills.shop",
      "go www.example now | www.",
      "example[.]com | e[.]c",
      "a.b.example | a.b.example",
      "EXAMPLE.COM | EXAMPLE.COM",
      "buy at cheap-pills\u3002shop now | cheap-pills.shop",
      "ｗｗｗ．Pills | www.",
  })
  void firstUrlNamesTheFragment(String text, String fragment) {
    assertThat(UrlDetector.firstUrl(text)).isEqualTo(fragment);
  }

  @ParameterizedTest(name = "control character {index}")
  @ValueSource(strings = {
      "line\nbreak",
      "carriage\rreturn",
      "tab\there",
      "nul\u0000byte",
      "line\u2028separator",
      "paragraph\u2029separator",
      "bell\u0007",
      "escape\u001b[0m",
      "delete\u007f",
      "next line\u0085",
      "\n",
      "trailing\n",
      "\r\nAction: person.purge",
  })
  void controlCharactersAreFound(String text) {
    assertThat(UrlDetector.hasControlCharacter(text)).isTrue();
  }

  @ParameterizedTest(name = "no control character: {0}")
  @ValueSource(strings = {
      "plain words",
      "unicode é ü ß 名前",
      "emoji \ud83d\ude00",
      "punctuation: ; , . ! ? - _ ( ) [ ] { }",
      "non-breaking\u00a0space",
      "",
  })
  void ordinaryTextHasNoControlCharacter(String text) {
    assertThat(UrlDetector.hasControlCharacter(text)).isFalse();
  }
}
