package io.shotstash.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigTest {

  /** An environment of these keys and values, in this order (a value may be null). */
  private static Map<String, String> env(String... keyValues) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  private static Config load(String... keyValues) {
    return Config.load(env(keyValues));
  }

  private static List<String> problems(Map<String, String> overrides) {
    Config.InvalidConfigException e =
        catchThrowableOfType(Config.InvalidConfigException.class, () -> Config.load(overrides));
    assertThat(e).as("an InvalidConfigException for %s", overrides).isNotNull();
    assertThat(e.getMessage()).isEqualTo(String.join("\n", e.problems()));
    return e.problems();
  }

  private static List<String> problems(String key, String value) {
    return problems(Map.of(key, value));
  }

  // ---- defaults ----

  @Test
  void theDefaultsLoadAndAreValid() {
    Config c = Config.load(Map.of());
    assertThat(c.httpPort()).isEqualTo(3005);
    assertThat(c.httpHost()).isEqualTo("0.0.0.0");
    assertThat(c.httpInstances()).isZero();
    assertThat(c.dbPoolSize()).isEqualTo(8);
    assertThat(c.dataDir()).isEqualTo(Path.of("./data"));
    assertThat(c.dataRepo()).isEqualTo(Path.of("./data/public.git")).isEqualTo(c.dataDir().resolve("public.git"));
    assertThat(c.dataBranch()).isEqualTo("published");
    assertThat(c.noreplyDomain()).isEqualTo("codeforphilly.org");
    assertThat(c.sessionDays()).isEqualTo(30);
    assertThat(c.repackEvery()).isEqualTo(500);
    assertThat(c.setupToken()).isNull();
    assertThat(c.jwtSecret()).isNull();
    Config.DatabaseUrl db = c.database();
    assertThat(c.databaseUrlSet()).isFalse();
    assertThat(db.host()).isEqualTo("127.0.0.1");
    assertThat(db.port()).isEqualTo(5432);
    assertThat(db.database()).isEqualTo("shotstash");
    assertThat(db.user()).isEqualTo("postgres");
    assertThat(db.password()).isNull();
    assertThat(db.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:5432/shotstash");
  }

  @Test
  void theShippedDefaultsHoldEveryCoreSetting() {
    assertThat(Config.defaults()).containsKeys("SHOTSTASH_DEFAULT_DATABASE_PORT", "SHOTSTASH_DB_POOL_SIZE",
        "SHOTSTASH_HTTP_HOST",
        "SHOTSTASH_HTTP_PORT", "SHOTSTASH_HTTP_INSTANCES", "SHOTSTASH_DATA_DIR", "SHOTSTASH_DATA_BRANCH",
        "SHOTSTASH_NOREPLY_DOMAIN", "SHOTSTASH_SESSION_DAYS", "SHOTSTASH_REPACK_EVERY");
  }

  // ---- overrides ----

  static Stream<Arguments> overrides() {
    return Stream.of(
        Arguments.of("SHOTSTASH_DB_POOL_SIZE", "16", (Function<Config, Object>) Config::dbPoolSize, 16),
        Arguments.of("SHOTSTASH_HTTP_HOST", "127.0.0.1", (Function<Config, Object>) Config::httpHost, "127.0.0.1"),
        Arguments.of("SHOTSTASH_HTTP_PORT", "8080", (Function<Config, Object>) Config::httpPort, 8080),
        Arguments.of("SHOTSTASH_HTTP_PORT", " 8081 ", (Function<Config, Object>) Config::httpPort, 8081),
        Arguments.of("SHOTSTASH_HTTP_INSTANCES", "4", (Function<Config, Object>) Config::httpInstances, 4),
        Arguments.of("SHOTSTASH_DATA_DIR", "/var/lib/shotstash", (Function<Config, Object>) Config::dataDir,
            Path.of("/var/lib/shotstash")),
        Arguments.of("SHOTSTASH_DATA_DIR", "/var/lib/shotstash", (Function<Config, Object>) Config::dataRepo,
            Path.of("/var/lib/shotstash/public.git")),
        Arguments.of("SHOTSTASH_DATA_REPO", "/srv/git/public.git", (Function<Config, Object>) Config::dataRepo,
            Path.of("/srv/git/public.git")),
        Arguments.of("SHOTSTASH_DATA_REPO", "   ", (Function<Config, Object>) Config::dataRepo,
            Path.of("./data/public.git")),
        Arguments.of("SHOTSTASH_DATA_BRANCH", "main", (Function<Config, Object>) Config::dataBranch, "main"),
        Arguments.of("SHOTSTASH_DATA_BRANCH", " release/2026.1_x ", (Function<Config, Object>) Config::dataBranch,
            "release/2026.1_x"),
        Arguments.of("SHOTSTASH_SETUP_TOKEN", "0123456789abcdef", (Function<Config, Object>) Config::setupToken,
            "0123456789abcdef"),
        Arguments.of("SHOTSTASH_SETUP_TOKEN", "  ", (Function<Config, Object>) Config::setupToken, null),
        Arguments.of("SHOTSTASH_JWT_SECRET", "x".repeat(32), (Function<Config, Object>) Config::jwtSecret,
            "x".repeat(32)),
        Arguments.of("SHOTSTASH_NOREPLY_DOMAIN", "users.example.org", (Function<Config, Object>) Config::noreplyDomain,
            "users.example.org"),
        Arguments.of("SHOTSTASH_NOREPLY_DOMAIN", "a-b.c0", (Function<Config, Object>) Config::noreplyDomain, "a-b.c0"),
        Arguments.of("SHOTSTASH_SESSION_DAYS", "7", (Function<Config, Object>) Config::sessionDays, 7),
        Arguments.of("SHOTSTASH_REPACK_EVERY", "10", (Function<Config, Object>) Config::repackEvery, 10),
        Arguments.of("DATABASE_URL", "postgresql://app@db:5433/media",
            (Function<Config, Object>) c -> c.database().jdbcUrl(), "jdbc:postgresql://db:5433/media"));
  }

  @ParameterizedTest(name = "{0}={1}")
  @MethodSource("overrides")
  void eachSettingIsOverridden(String key, String value, Function<Config, Object> read, Object expected) {
    assertThat(read.apply(load(key, value))).isEqualTo(expected);
  }

  @Test
  void theDataRepoOverrideLeavesTheDataDirAlone() {
    Config c = load("SHOTSTASH_DATA_DIR", "/var/lib/shotstash", "SHOTSTASH_DATA_REPO", "/srv/git/public.git");
    assertThat(c.dataDir()).isEqualTo(Path.of("/var/lib/shotstash"));
    assertThat(c.dataRepo()).isEqualTo(Path.of("/srv/git/public.git"));
  }

  @Test
  void unrelatedVariablesAndNullValuesAreIgnored() {
    Config c = load("PATH", "/usr/bin", "HTTP_PORT", "not a number", "PORT", "-1", "SHOTSTASH_HTTP_PORT", null,
        "DATABASE_URL", null);
    assertThat(c.httpPort()).isEqualTo(3005);
    assertThat(c.database().host()).isEqualTo("127.0.0.1");
  }

  @Test
  void effectiveHttpInstancesIsTheSettingOrOnePerCore() {
    assertThat(load("SHOTSTASH_HTTP_INSTANCES", "3").effectiveHttpInstances()).isEqualTo(3);
    assertThat(load("SHOTSTASH_HTTP_INSTANCES", "0").effectiveHttpInstances())
        .isEqualTo(Runtime.getRuntime().availableProcessors()).isPositive();
  }

  // ---- DATABASE_URL ----

  @Test
  void databaseUrlHasNoDefaultSoTheAppCanTellUnsetFromSet() {
    // unset: the default address, which DatabaseServer tries before the embedded server
    assertThat(Config.defaults()).doesNotContainKey("DATABASE_URL");
    Config set = load("DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/shotstash");
    assertThat(set.databaseUrlSet()).isTrue();
    assertThat(set.database()).isEqualTo(Config.load(Map.of()).database());
  }

  @Test
  void theDefaultDatabasePortMovesTheDefaultAddressOnly() {
    Config unset = load("SHOTSTASH_DEFAULT_DATABASE_PORT", "6543");
    assertThat(unset.database().jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:6543/shotstash");
    assertThat(unset.databaseUrlSet()).isFalse();
    Config set = load("SHOTSTASH_DEFAULT_DATABASE_PORT", "6543", "DATABASE_URL", "postgresql://app@db/media");
    assertThat(set.database().jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/media");
    assertThat(problems("SHOTSTASH_DEFAULT_DATABASE_PORT", "0")).containsExactly(
        "SHOTSTASH_DEFAULT_DATABASE_PORT must be between 1 and 65535, got 0");
  }

  @Test
  void withDatabaseChangesOnlyTheDatabase() {
    Config c = load("SHOTSTASH_HTTP_PORT", "8080");
    Config.DatabaseUrl embedded = new Config.DatabaseUrl("127.0.0.1", 41000, "shotstash", "postgres", null);
    Config moved = c.withDatabase(embedded);
    assertThat(moved.database()).isEqualTo(embedded);
    assertThat(moved.withDatabase(c.database())).isEqualTo(c);
  }

  @ParameterizedTest
  @CsvSource(nullValues = "NULL", value = {
      "postgresql://alice:s3cret@db.example.org:6543/media, db.example.org, 6543, media,     alice,    s3cret",
      "postgres://bob@localhost/shots,                      localhost,      5432, shots,     bob,      NULL",
      "postgresql://db/app_1,                               db,             5432, app_1,     postgres, NULL",
      "postgresql://carol:@db:5432/app,                     db,             5432, app,       carol,    ''",
      "postgresql://u:p%40ss:w@10.0.0.5/app,                10.0.0.5,       5432, app,       u,        p@ss:w",
      "postgresql://u@[::1]:5499/app,                       [::1],          5499, app,       u,        NULL"})
  void databaseUrlIsParsedIntoItsParts(String url, String host, int port, String database, String user,
      String password) {
    Config.DatabaseUrl db = load("DATABASE_URL", url).database();
    assertThat(db.host()).isEqualTo(host);
    assertThat(db.port()).isEqualTo(port);
    assertThat(db.database()).isEqualTo(database);
    assertThat(db.user()).isEqualTo(user);
    assertThat(db.password()).isEqualTo(password);
  }

  @Test
  void databaseUrlDisplayLeavesThePasswordOut() {
    Config.DatabaseUrl db = load("DATABASE_URL", "postgresql://alice:s3cret@db:6543/media").database();
    assertThat(db.display()).isEqualTo("postgresql://alice@db:6543/media").doesNotContain("s3cret");
    assertThat(db.withDatabase("other").jdbcUrl()).isEqualTo("jdbc:postgresql://db:6543/other");
    assertThat(db.withDatabase("other").password()).isEqualTo("s3cret");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "mysql://u@h/db                 | must start with postgresql://",
      "db.example.org/app             | must start with postgresql://",
      "postgresql://u@h               | must name a database",
      "postgresql://u@h/              | must name a database",
      "postgresql://u@h/db/extra      | must name a database",
      "postgresql://u@h/my-db         | must name a database",
      "postgresql:///db               | names no host",
      "postgresql://u@h/db with space | is not a URL"})
  void aBadDatabaseUrlIsOneProblemNamingTheVariable(String url, String reason) {
    assertThat(problems("DATABASE_URL", url)).singleElement().asString()
        .startsWith("DATABASE_URL " + reason)
        .contains("postgresql://user@host:port/database");
  }

  // ---- bad settings ----

  @ParameterizedTest
  @CsvSource({
      "SHOTSTASH_DB_POOL_SIZE,   1,  64",
      "SHOTSTASH_HTTP_PORT,      0,  65535",
      "SHOTSTASH_HTTP_INSTANCES, 0,  64",
      "SHOTSTASH_SESSION_DAYS,   1,  365",
      "SHOTSTASH_REPACK_EVERY,   10, 1000000"})
  void wholeNumbersHaveInclusiveBounds(String key, int min, int max) {
    load(key, String.valueOf(min));
    load(key, String.valueOf(max));
    assertThat(problems(key, String.valueOf(min - 1))).containsExactly(
        key + " must be between " + min + " and " + max + ", got " + (min - 1));
    assertThat(problems(key, String.valueOf(max + 1))).containsExactly(
        key + " must be between " + min + " and " + max + ", got " + (max + 1));
    assertThat(problems(key, "twelve")).singleElement().asString()
        .startsWith(key + " must be a whole number between " + min + " and " + max);
  }

  @ParameterizedTest
  @ValueSource(strings = {"-x", "a..b", "a b", "x~1", "refs:heads", ".hidden", "LONG"})
  void aBranchMustBeAPlainName(String branch) {
    String value = branch.equals("LONG") ? "a".repeat(101) : branch;
    assertThat(problems("SHOTSTASH_DATA_BRANCH", value)).singleElement().asString()
        .startsWith("SHOTSTASH_DATA_BRANCH must be a plain branch name");
  }

  @Test
  void aBranchIsAtMostOneHundredCharacters() {
    assertThat(load("SHOTSTASH_DATA_BRANCH", "a".repeat(100)).dataBranch()).hasSize(100);
  }

  @ParameterizedTest
  @ValueSource(strings = {"localhost", "Example.org", "-a.org", "a-.org", "a..org", "a_b.org", "a.org."})
  void theNoreplyDomainMustBeALowercaseDomainName(String domain) {
    assertThat(problems("SHOTSTASH_NOREPLY_DOMAIN", domain)).singleElement().asString()
        .startsWith("SHOTSTASH_NOREPLY_DOMAIN must be a lowercase domain name");
  }

  @Test
  void secretsHaveMinimumLengths() {
    assertThat(problems("SHOTSTASH_SETUP_TOKEN", "x".repeat(15)))
        .containsExactly("SHOTSTASH_SETUP_TOKEN must be at least 16 characters");
    assertThat(problems("SHOTSTASH_JWT_SECRET", "x".repeat(31)))
        .containsExactly("SHOTSTASH_JWT_SECRET must be at least 32 characters");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SHOTSTASH_HTTP_HOST", "SHOTSTASH_DATA_DIR", "SHOTSTASH_HTTP_PORT", "SHOTSTASH_DB_POOL_SIZE"})
  void anEmptySettingIsOneProblemNamingTheVariable(String key) {
    assertThat(problems(key, "  ")).singleElement().asString().startsWith(key + " ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SHOTSTASH_DATA_BRANCH", "SHOTSTASH_NOREPLY_DOMAIN", "DATABASE_URL"})
  void anEmptyCheckedSettingIsAlsoOneProblem(String key) {
    assertThat(problems(key, "")).singleElement().asString().startsWith(key + " ");
  }

  @Test
  void severalBadSettingsAreReportedTogetherOneLineEach() {
    Map<String, String> bad = env(
        "DATABASE_URL", "mysql://u@h/db",
        "SHOTSTASH_DB_POOL_SIZE", "lots",
        "SHOTSTASH_HTTP_PORT", "70000",
        "SHOTSTASH_HTTP_INSTANCES", "-1",
        "SHOTSTASH_DATA_BRANCH", "../escape",
        "SHOTSTASH_SETUP_TOKEN", "short",
        "SHOTSTASH_JWT_SECRET", "also short",
        "SHOTSTASH_NOREPLY_DOMAIN", "Not A Domain",
        "SHOTSTASH_SESSION_DAYS", "0",
        "SHOTSTASH_REPACK_EVERY", "9",
        "SHOTSTASH_HTTP_HOST", "");

    List<String> problems = problems(bad);
    assertThat(problems).hasSize(bad.size());
    for (String key : bad.keySet()) {
      assertThat(problems).as("the line about %s", key).filteredOn(line -> line.startsWith(key + " ")).hasSize(1);
    }
  }

  @Test
  void oneBadSettingAmongGoodOnesIsTheOnlyProblem() {
    assertThatThrownBy(() -> load("SHOTSTASH_HTTP_PORT", "8080", "SHOTSTASH_SESSION_DAYS", "400"))
        .isInstanceOf(Config.InvalidConfigException.class)
        .hasMessage("SHOTSTASH_SESSION_DAYS must be between 1 and 365, got 400");
  }

  // ---- the site behind a proxy ----

  @Test
  void thePublicOriginAndTrustedProxiesAreUnsetByDefault() {
    Config c = Config.load(Map.of());
    assertThat(c.site().publicOrigin()).isNull();
    assertThat(c.site().trustedProxies()).isEmpty();
  }

  @Test
  void thePublicOriginIsNormalisedAsBrowsersSendIt() {
    assertThat(load("SHOTSTASH_PUBLIC_ORIGIN", " HTTPS://Media.Example.org:443/ ").site().publicOrigin())
        .isEqualTo("https://media.example.org");
    assertThat(load("SHOTSTASH_PUBLIC_ORIGIN", "http://localhost:3005").site().publicOrigin())
        .isEqualTo("http://localhost:3005");
    assertThat(load("SHOTSTASH_PUBLIC_ORIGIN", "  ").site().publicOrigin()).as("blank is unset").isNull();
  }

  @Test
  void trustedProxiesAreAddressesAndRanges() {
    assertThat(load("SHOTSTASH_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8,::1 ,").site().trustedProxies())
        .containsExactly("127.0.0.1", "10.0.0.0/8", "::1");
  }

  @Test
  void aBadPublicOriginOrProxyIsOneLineEach() {
    assertThat(problems(env("SHOTSTASH_PUBLIC_ORIGIN", "https://media.example.org/app",
        "SHOTSTASH_TRUSTED_PROXIES", "10.0.0.1, proxy.example.org, 10.0.0.0/40"))).containsExactly(
            "SHOTSTASH_PUBLIC_ORIGIN must be http:// or https:// and a host (and port), without a path, e.g. "
                + "https://media.example.org, got 'https://media.example.org/app'",
            "SHOTSTASH_TRUSTED_PROXIES must be an IP address or a range such as 10.0.0.0/8, got 'proxy.example.org'",
            "SHOTSTASH_TRUSTED_PROXIES must be an IP address or a range such as 10.0.0.0/8, got '10.0.0.0/40'");
  }
}
