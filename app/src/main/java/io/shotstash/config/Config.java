package io.shotstash.config;

import io.shotstash.http.SiteOrigin;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The validated settings of one node. Defaults come from {@code conf/defaults.properties} (shipped in
 * the jar); every key can be overridden by the environment variable of the same name. Invalid
 * settings are collected, one line per problem naming the variable, and thrown together.
 *
 * <p>docs/configuration.md lists every setting; keep the two in step.
 */
public record Config(
    DatabaseUrl database,
    boolean databaseUrlSet,
    int dbPoolSize,
    String httpHost,
    int httpPort,
    int httpInstances,
    Path dataDir,
    Path dataRepo,
    String dataBranch,
    String setupToken,
    String jwtSecret,
    String noreplyDomain,
    int sessionDays,
    int repackEvery,
    long maxUploadBytes,
    /** How long a resumable upload lives after its last PATCH (SHOTSTASH_UPLOAD_EXPIRY_HOURS). */
    int uploadExpiryHours,
    Pipeline pipeline,
    GitHub github,
    int inProcessWorkers,
    Moderation moderation,
    Cluster cluster,
    Site site) {

  /**
   * How browsers reach the site when a proxy terminates TLS in front of it: the public origin
   * ({@code https://media.example.org}, normalised; null when unset) and the proxies whose
   * {@code X-Forwarded-Proto} is believed (IP addresses and CIDR ranges). See {@code SiteOrigin}.
   */
  public record Site(String publicOrigin, List<String> trustedProxies) {
    public Site {
      trustedProxies = List.copyOf(trustedProxies);
    }
  }

  /**
   * Where this node meets the others when started with {@code serve --cluster} (ignored otherwise):
   * the address Hazelcast and the event bus bind to, Hazelcast's port, the TCP-IP members to join
   * ({@code host:port}), the event bus port (0 = any free one) and an optional Hazelcast XML file
   * replacing the {@code conf/cluster.xml} shipped in the jar.
   */
  public record Cluster(String host, int port, List<String> members, int busPort, Path configFile) {
    public Cluster {
      members = List.copyOf(members);
    }

    /** How this node is named in {@code /api/v1/status}: its cluster address and its HTTP port. */
    public String nodeName(int httpPort) {
      return host + ":" + httpPort;
    }
  }

  /** Moderation settings (docs/configuration.md → Moderation). */
  public record Moderation(int purgeSweepSeconds, String dataRepoWebUrl, String bounceSecret) {}

  /** GitHub sign-in and the GitHub probe. Both base URLs are settings so tests use a local fake. */
  public record GitHub(String apiUrl, String oauthUrl, String clientId, String clientSecret) {
    /** Sign-in is offered only when both the client id and secret are set. */
    public boolean signInEnabled() {
      return clientId != null && clientSecret != null;
    }
  }

  /** The worker contract's settings (docs/configuration.md → Pipeline). */
  public record Pipeline(String bootstrapToken, long maxOutputBytes, int leaseSeconds, int sweepSeconds,
      int queueInstances) {
    /** Workers are asked to heartbeat this often; the contract fixes it at 30 s. */
    public int heartbeatSeconds() {
      return 30;
    }
  }

  /**
   * The same settings with another database: the one {@code DatabaseServer} chose (the embedded
   * server when nothing answers at the default address).
   */
  public Config withDatabase(DatabaseUrl other) {
    return new Config(other, databaseUrlSet, dbPoolSize, httpHost, httpPort, httpInstances, dataDir, dataRepo,
        dataBranch,
        setupToken, jwtSecret, noreplyDomain, sessionDays, repackEvery, maxUploadBytes, uploadExpiryHours, pipeline,
        github,
        inProcessWorkers, moderation, cluster, site);
  }

  /** A PostgreSQL location parsed from {@code postgresql://user[:password]@host[:port]/database}. */
  public record DatabaseUrl(String host, int port, String database, String user, String password) {
    public String jdbcUrl() {
      return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    public DatabaseUrl withDatabase(String other) {
      return new DatabaseUrl(host, port, other, user, password);
    }

    /** The URL without its password, safe to print. */
    public String display() {
      return "postgresql://" + user + "@" + host + ":" + port + "/" + database;
    }

    static DatabaseUrl parse(String raw) {
      URI uri;
      try {
        uri = new URI(raw);
      } catch (URISyntaxException e) {
        throw new IllegalArgumentException("is not a URL");
      }
      if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
        throw new IllegalArgumentException("must start with postgresql://");
      }
      if (uri.getHost() == null) {
        throw new IllegalArgumentException("names no host");
      }
      String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
      if (!path.matches("[A-Za-z0-9_]{1,63}")) {
        throw new IllegalArgumentException("must name a database (letters, digits, _)");
      }
      String user = "postgres";
      String password = null;
      if (uri.getUserInfo() != null && !uri.getUserInfo().isEmpty()) {
        String[] parts = uri.getUserInfo().split(":", 2);
        user = parts[0];
        password = parts.length > 1 ? parts[1] : null;
      }
      return new DatabaseUrl(uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(), path, user, password);
    }
  }

  /** Thrown with every problem found, one line each. */
  public static final class InvalidConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;

    InvalidConfigException(List<String> problems) {
      super(String.join("\n", problems));
      this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
      return problems;
    }
  }

  /** Loads the defaults from the jar and overlays the process environment. */
  public static Config fromEnvironment() {
    return load(System.getenv());
  }

  /** Loads the defaults from the jar and overlays {@code overrides} (tests pass their own map). */
  public static Config load(Map<String, String> overrides) {
    Map<String, String> values = new HashMap<>(defaults());
    overrides.forEach((k, v) -> {
      if (v != null && (values.containsKey(k) || k.startsWith("SHOTSTASH_") || k.equals("DATABASE_URL")
          || k.equals("WORKER_BOOTSTRAP_TOKEN"))) {
        values.put(k, v);
      }
    });
    return new Reader(values).read();
  }

  static Map<String, String> defaults() {
    Properties props = new Properties();
    try (InputStream in = Config.class.getResourceAsStream("/conf/defaults.properties")) {
      if (in == null) {
        throw new IllegalStateException("conf/defaults.properties is missing from the class path");
      }
      props.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> map = new HashMap<>();
    props.forEach((k, v) -> map.put(k.toString(), v.toString()));
    return map;
  }

  /** An IPv4 address, a bracket-less IPv6 address or a DNS name. */
  private static final java.util.regex.Pattern HOST =
      java.util.regex.Pattern.compile("[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|[0-9A-Fa-f:]{2,39}");

  /** Reads each setting, collecting problems instead of stopping at the first. */
  private static final class Reader {
    private final Map<String, String> values;
    private final List<String> problems = new ArrayList<>();

    Reader(Map<String, String> values) {
      this.values = values;
    }

    Config read() {
      // DATABASE_URL has no default: unset (absent), the default address is tried and, when nothing
      // answers there, the embedded server (DatabaseServer). Present but blank is a mistake, not "unset".
      DatabaseUrl db = null;
      boolean dbUrlSet = values.containsKey("DATABASE_URL");
      int defaultDbPort = integer("SHOTSTASH_DEFAULT_DATABASE_PORT", 1, 65535);
      if (dbUrlSet) {
        String dbUrl = text("DATABASE_URL");
        try {
          db = dbUrl.isEmpty() ? null : DatabaseUrl.parse(dbUrl);
        } catch (IllegalArgumentException e) {
          problems.add("DATABASE_URL " + e.getMessage() + " (expected postgresql://user@host:port/database)");
        }
      } else {
        db = new DatabaseUrl("127.0.0.1", defaultDbPort, "shotstash", "postgres", null);
      }
      int pool = integer("SHOTSTASH_DB_POOL_SIZE", 1, 64);
      String host = text("SHOTSTASH_HTTP_HOST");
      int port = integer("SHOTSTASH_HTTP_PORT", 0, 65535);
      int instances = integer("SHOTSTASH_HTTP_INSTANCES", 0, 64);
      Path dataDir = Path.of(text("SHOTSTASH_DATA_DIR"));
      String repo = optional("SHOTSTASH_DATA_REPO");
      Path dataRepo = repo == null ? dataDir.resolve("public.git") : Path.of(repo);
      String branch = text("SHOTSTASH_DATA_BRANCH");
      if (!branch.isEmpty() && !branch.matches("[A-Za-z0-9][A-Za-z0-9._/-]{0,99}") || branch.contains("..")) {
        problems.add("SHOTSTASH_DATA_BRANCH must be a plain branch name, got '" + branch + "'");
      }
      String setupToken = optional("SHOTSTASH_SETUP_TOKEN");
      if (setupToken != null && setupToken.length() < 16) {
        problems.add("SHOTSTASH_SETUP_TOKEN must be at least 16 characters");
      }
      String jwtSecret = optional("SHOTSTASH_JWT_SECRET");
      if (jwtSecret != null && jwtSecret.length() < 32) {
        problems.add("SHOTSTASH_JWT_SECRET must be at least 32 characters");
      }
      String noreply = text("SHOTSTASH_NOREPLY_DOMAIN");
      if (!noreply.isEmpty() && !noreply.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+")) {
        problems.add("SHOTSTASH_NOREPLY_DOMAIN must be a lowercase domain name, got '" + noreply + "'");
      }
      int sessionDays = integer("SHOTSTASH_SESSION_DAYS", 1, 365);
      int repackEvery = integer("SHOTSTASH_REPACK_EVERY", 10, 1_000_000);
      String bootstrap = optional("WORKER_BOOTSTRAP_TOKEN");
      if (bootstrap != null && bootstrap.length() < 32) {
        problems.add("WORKER_BOOTSTRAP_TOKEN must be at least 32 characters");
      }
      int maxOutputMb = integer("SHOTSTASH_PIPELINE_MAX_OUTPUT_MB", 1, 1_048_576);
      int lease = integer("SHOTSTASH_PIPELINE_LEASE_SECONDS", 61, 3600);
      int sweep = integer("SHOTSTASH_PIPELINE_SWEEP_SECONDS", 1, Math.max(1, lease / 2));
      int queueInstances = integer("SHOTSTASH_PIPELINE_QUEUE_INSTANCES", 1, 64);
      int maxUploadMb = integer("SHOTSTASH_MAX_UPLOAD_MB", 1, 1_048_576);
      int uploadExpiryHours = integer("SHOTSTASH_UPLOAD_EXPIRY_HOURS", 1, 8_760);
      String apiUrl = baseUrl("SHOTSTASH_GITHUB_API_URL");
      String oauthUrl = baseUrl("SHOTSTASH_GITHUB_OAUTH_URL");
      GitHub github = new GitHub(apiUrl, oauthUrl, optional("SHOTSTASH_GITHUB_CLIENT_ID"),
          optional("SHOTSTASH_GITHUB_CLIENT_SECRET"));
      int purgeSweep = integer("SHOTSTASH_PURGE_SWEEP_SECONDS", 1, 86_400);
      String webUrl = optional("SHOTSTASH_DATA_REPO_WEB_URL");
      if (webUrl != null && !webUrl.matches("https?://\\S+")) {
        problems.add("SHOTSTASH_DATA_REPO_WEB_URL must be an http or https URL, got '" + webUrl + "'");
      }
      String bounceSecret = optional("SHOTSTASH_BOUNCE_SECRET");
      if (bounceSecret != null && bounceSecret.length() < 32) {
        problems.add("SHOTSTASH_BOUNCE_SECRET must be at least 32 characters");
      }
      Moderation moderation =
          new Moderation(purgeSweep, webUrl == null ? null : webUrl.replaceAll("/+$", ""), bounceSecret);
      Pipeline pipeline = new Pipeline(bootstrap, maxOutputMb * 1024L * 1024L, lease, sweep, queueInstances);
      int inProcessWorkers = integer("SHOTSTASH_IN_PROCESS_WORKERS", 0, 16);
      Cluster cluster = cluster();
      Site site = site();
      problems.addAll(LogFormat.problems(values)); // read by LogSetup before this, checked here
      if (!problems.isEmpty()) {
        throw new InvalidConfigException(problems);
      }
      return new Config(db, dbUrlSet, pool, host, port, instances, dataDir, dataRepo, branch, setupToken, jwtSecret,
          noreply, sessionDays, repackEvery,
          maxUploadMb * 1024L * 1024L, uploadExpiryHours, pipeline, github, inProcessWorkers, moderation, cluster,
          site);
    }

    /** SHOTSTASH_PUBLIC_ORIGIN and SHOTSTASH_TRUSTED_PROXIES (docs/configuration.md → Behind a proxy). */
    private Site site() {
      String origin = optional("SHOTSTASH_PUBLIC_ORIGIN");
      if (origin != null) {
        String problem = SiteOrigin.originProblem(origin);
        if (problem != null) {
          problems.add("SHOTSTASH_PUBLIC_ORIGIN " + problem + ", got '" + origin + "'");
          origin = null;
        } else {
          origin = SiteOrigin.normalizeOrigin(origin);
        }
      }
      List<String> proxies = new ArrayList<>();
      String list = optional("SHOTSTASH_TRUSTED_PROXIES");
      for (String raw : list == null ? new String[0] : list.split(",")) {
        String entry = raw.strip();
        if (entry.isEmpty()) {
          continue;
        }
        String problem = SiteOrigin.proxyProblem(entry);
        if (problem != null) {
          problems.add("SHOTSTASH_TRUSTED_PROXIES " + problem);
        } else {
          proxies.add(entry);
        }
      }
      return new Site(origin, proxies);
    }

    /** The SHOTSTASH_CLUSTER_* settings (docs/configuration.md → Cluster). */
    private Cluster cluster() {
      String host = text("SHOTSTASH_CLUSTER_HOST");
      if (!host.isEmpty() && !HOST.matcher(host).matches()) {
        problems.add("SHOTSTASH_CLUSTER_HOST must be an IP address or a host name, got '" + host + "'");
      }
      int port = integer("SHOTSTASH_CLUSTER_PORT", 1, 65535);
      List<String> members = new ArrayList<>();
      for (String raw : text("SHOTSTASH_CLUSTER_MEMBERS").split(",")) {
        String member = raw.trim();
        if (member.isEmpty()) {
          continue;
        }
        int colon = member.lastIndexOf(':');
        String memberHost = colon < 0 ? member : member.substring(0, colon);
        String memberPort = colon < 0 ? Integer.toString(port) : member.substring(colon + 1);
        if (!HOST.matcher(memberHost).matches() || !memberPort.matches("\\d{1,5}")
            || Integer.parseInt(memberPort) < 1 || Integer.parseInt(memberPort) > 65535) {
          problems
              .add("SHOTSTASH_CLUSTER_MEMBERS must list host:port entries separated by commas, got '" + member + "'");
          continue;
        }
        members.add(memberHost + ":" + memberPort);
      }
      if (members.isEmpty() && values.get("SHOTSTASH_CLUSTER_MEMBERS") != null
          && !values.get("SHOTSTASH_CLUSTER_MEMBERS").isBlank()) {
        problems.add("SHOTSTASH_CLUSTER_MEMBERS must list at least one host:port");
      }
      int busPort = integer("SHOTSTASH_CLUSTER_BUS_PORT", 0, 65535);
      String file = optional("SHOTSTASH_CLUSTER_CONFIG");
      return new Cluster(host, port, members, busPort, file == null ? null : Path.of(file));
    }

    private String text(String key) {
      String v = values.get(key);
      if (v == null || v.isBlank()) {
        problems.add(key + " must not be empty");
        return "";
      }
      return v.trim();
    }

    /** An http(s) base URL without a trailing slash. */
    private String baseUrl(String key) {
      String v = text(key);
      if (!v.isEmpty() && !v.matches("https?://[^\\s/?#]+(/[^\\s?#]*)?")) {
        problems.add(key + " must be an http or https URL, got '" + v + "'");
      }
      return v.replaceAll("/+$", "");
    }

    private String optional(String key) {
      String v = values.get(key);
      return v == null || v.isBlank() ? null : v.trim();
    }

    private int integer(String key, int min, int max) {
      String v = values.get(key);
      try {
        int n = Integer.parseInt(v == null ? "" : v.trim());
        if (n < min || n > max) {
          problems.add(key + " must be between " + min + " and " + max + ", got " + n);
        }
        return n;
      } catch (NumberFormatException e) {
        problems.add(key + " must be a whole number between " + min + " and " + max + ", got '" + v + "'");
        return min;
      }
    }
  }

  /** HTTP verticle instances: the setting, or one per core when it is 0. */
  public int effectiveHttpInstances() {
    return httpInstances > 0 ? httpInstances : Math.max(1, Runtime.getRuntime().availableProcessors());
  }
}
