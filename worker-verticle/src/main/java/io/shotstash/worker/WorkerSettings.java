package io.shotstash.worker;

import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The reference worker's settings. The standalone worker reads them from the environment
 * ({@link #fromEnvironment}); in-process workers get {@link #inProcess}; tests build the record with
 * short intervals. {@link #toString()} leaves the bootstrap token out.
 *
 * @param url the app's URL (standalone only)
 * @param bootstrapToken the app's WORKER_BOOTSTRAP_TOKEN (standalone only)
 * @param name the manifest name: one per worker process
 * @param poll how long to wait after {@code jobs/next} answered 204
 * @param tmpDir where scratch folders go (one per job, always deleted)
 * @param idle a job that makes no progress this long is failed (retryable)
 * @param healthPort the port of {@code GET /healthz}; 0 for none
 * @param backoff the wait after 401, 503 or a network error (the contract's 30 s)
 * @param resumableOutputBytes outputs of at least this many bytes go up as a resumable (tus) upload,
 *     which a dropped connection does not send back to the start; smaller ones with one plain PUT;
 *     0: always the plain PUT (standalone only)
 */
public record WorkerSettings(String url, String bootstrapToken, String name, Duration poll, Path tmpDir, Duration idle,
    int healthPort, Duration backoff, long resumableOutputBytes) {

  public static final int DEFAULT_POLL_SECONDS = 5;
  public static final int DEFAULT_IDLE_SECONDS = 300;
  public static final int DEFAULT_HEALTH_PORT = 3006;
  public static final int DEFAULT_BACKOFF_SECONDS = 30;
  /** Outputs from this size on go up resumably: a proxy of a long video, not a short clip's. */
  public static final int DEFAULT_RESUMABLE_OUTPUT_MB = 64;
  private static final long MB = 1L << 20;

  /** The settings with the default resumable-output size ({@link #DEFAULT_RESUMABLE_OUTPUT_MB}). */
  public WorkerSettings(String url, String bootstrapToken, String name, Duration poll, Path tmpDir, Duration idle,
      int healthPort, Duration backoff) {
    this(url, bootstrapToken, name, poll, tmpDir, idle, healthPort, backoff, DEFAULT_RESUMABLE_OUTPUT_MB * MB);
  }

  /** One line per bad setting, each naming its variable. */
  public static final class InvalidSettingsException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final List<String> problems;

    InvalidSettingsException(List<String> problems) {
      super(String.join("\n", problems));
      this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
      return problems;
    }
  }

  /**
   * An in-process worker: no URL or token (it talks to the event bus), no health port, a 1 s poll
   * (an empty {@code jobs/next} on the event bus is answered from memory, without PostgreSQL), the
   * other defaults.
   */
  public static WorkerSettings inProcess(String name, Path tmpDir) {
    return new WorkerSettings(null, null, name, Duration.ofSeconds(1), tmpDir,
        Duration.ofSeconds(DEFAULT_IDLE_SECONDS), 0, Duration.ofSeconds(DEFAULT_BACKOFF_SECONDS));
  }

  /**
   * Reads {@code SHOTSTASH_URL}, {@code WORKER_BOOTSTRAP_TOKEN}, {@code WORKER_NAME},
   * {@code WORKER_POLL_SECONDS}, {@code WORKER_TMP_DIR}, {@code WORKER_IDLE_SECONDS},
   * {@code WORKER_HEALTH_PORT}, {@code WORKER_BACKOFF_SECONDS} and {@code WORKER_RESUMABLE_OUTPUT_MB};
   * throws every problem at once.
   */
  public static WorkerSettings fromEnvironment(Map<String, String> env) {
    List<String> problems = new ArrayList<>();
    String url = value(env, "SHOTSTASH_URL", "http://localhost:3005");
    try {
      URI uri = new URI(url);
      if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
          || uri.getQuery() != null || uri.getFragment() != null) {
        problems.add("SHOTSTASH_URL must be the app's http:// or https:// URL, got '" + url + "'");
      }
    } catch (URISyntaxException e) {
      problems.add("SHOTSTASH_URL must be the app's http:// or https:// URL, got '" + url + "'");
    }
    String token = value(env, "WORKER_BOOTSTRAP_TOKEN", null);
    if (token == null) {
      problems.add("WORKER_BOOTSTRAP_TOKEN must be set to the app's WORKER_BOOTSTRAP_TOKEN");
    } else if (token.length() < 32) {
      problems.add("WORKER_BOOTSTRAP_TOKEN must be at least 32 characters (the app's WORKER_BOOTSTRAP_TOKEN)");
    }
    String name = value(env, "WORKER_NAME", defaultName(env));
    if (name.length() > 100 || name.chars().anyMatch(Character::isISOControl)) {
      problems.add("WORKER_NAME must be 1 to 100 characters without control characters");
    }
    int poll = integer(env, "WORKER_POLL_SECONDS", DEFAULT_POLL_SECONDS, 1, 300, problems);
    Path tmp = Path
        .of(value(env, "WORKER_TMP_DIR", Path.of(System.getProperty("java.io.tmpdir"), "shotstash-worker").toString()));
    int idle = integer(env, "WORKER_IDLE_SECONDS", DEFAULT_IDLE_SECONDS, 1, 86_400, problems);
    int health = integer(env, "WORKER_HEALTH_PORT", DEFAULT_HEALTH_PORT, 0, 65_535, problems);
    int backoff = integer(env, "WORKER_BACKOFF_SECONDS", DEFAULT_BACKOFF_SECONDS, 1, 3600, problems);
    int resumable = integer(env, "WORKER_RESUMABLE_OUTPUT_MB", DEFAULT_RESUMABLE_OUTPUT_MB, 0, 1_048_576, problems);
    if (!problems.isEmpty()) {
      throw new InvalidSettingsException(problems);
    }
    return new WorkerSettings(url.replaceAll("/+$", ""), token, name, Duration.ofSeconds(poll), tmp,
        Duration.ofSeconds(idle), health, Duration.ofSeconds(backoff), resumable * MB);
  }

  /** {@code proxy-720p-<host name>}: distinct per machine and per container. */
  static String defaultName(Map<String, String> env) {
    String host = env.get("HOSTNAME");
    if (host == null || host.isBlank()) {
      try {
        host = InetAddress.getLocalHost().getHostName();
      } catch (UnknownHostException e) {
        host = "worker";
      }
    }
    String safe = host.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.-]", "-");
    return "proxy-720p-" + (safe.length() > 80 ? safe.substring(0, 80) : safe);
  }

  private static String value(Map<String, String> env, String key, String fallback) {
    String v = env.get(key);
    return v == null || v.isBlank() ? fallback : v.strip();
  }

  private static int integer(Map<String, String> env, String key, int fallback, int min, int max,
      List<String> problems) {
    String v = value(env, key, null);
    if (v == null) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(v);
      if (n < min || n > max) {
        problems.add(key + " must be between " + min + " and " + max + ", got " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      problems.add(key + " must be a whole number between " + min + " and " + max + ", got '" + v + "'");
      return fallback;
    }
  }

  @Override
  public String toString() {
    return "WorkerSettings[url=" + url + ", name=" + name + ", poll=" + poll + ", tmpDir=" + tmpDir + ", idle=" + idle
        + ", healthPort=" + healthPort + ", backoff=" + backoff + ", resumableOutputBytes=" + resumableOutputBytes
        + "]";
  }
}
