package io.shotstash;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.AppProcess;
import io.shotstash.testing.ClusterNodes;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code SHOTSTASH_LOG_FORMAT=json} and {@code SHOTSTASH_ACCESS_LOG=true} on the real jar: every
 * line it prints is one JSON object, a request's access line names its route pattern (never the
 * path), status and kind of caller, and carries the trace id its error envelope showed.
 */
class LogFormatIT {
  private static final Duration START = Duration.ofSeconds(90);
  private static final String SETUP_TOKEN = "log-format-it-setup-token-0123456789";
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  @Test
  void jsonLinesWithAnAccessLineThatCarriesTheEnvelopesTraceId() throws Exception {
    Path folder = Files.createTempDirectory(ClusterNodes.jar().getParent(), "log-format-it-");
    try (TestDatabase db = TestDatabase.create()) {
      int port = freePort();
      Map<String, String> env = AppProcess.baseEnv(port, folder.resolve("data"), folder);
      env.put("DATABASE_URL", db.databaseUrl());
      env.put("SHOTSTASH_LOG_FORMAT", "json");
      env.put("SHOTSTASH_ACCESS_LOG", "true");
      env.put("SHOTSTASH_SETUP_TOKEN", SETUP_TOKEN);
      String traceId;
      try (AppProcess app = AppProcess.start(folder.resolve("app.log"), env)) {
        awaitReady(app, port);
        HttpResponse<String> setup = http.send(HttpRequest.newBuilder(URI.create(base(port) + "/api/setup"))
            .header("X-Setup-Token", SETUP_TOKEN).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(new JsonObject().put("slug", "ada").put("fullName", "Ada")
                .put("email", "ada@example.org").put("password", "a long password 123").encode()))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(setup.statusCode()).as(setup.body()).isEqualTo(201);
        HttpResponse<String> refused = get(port, "/api/people/nobody-here");
        assertThat(refused.statusCode()).as(refused.body()).isEqualTo(404);
        traceId = new JsonObject(refused.body()).getJsonObject("error").getString("traceId");
        assertThat(traceId).isNotBlank();
        app.stop(Duration.ofSeconds(30)); // SIGTERM: the JVM ends with 143 after its shutdown hooks
      }
      List<JsonObject> lines = jsonLines(Files.readAllLines(folder.resolve("app.log")));
      assertThat(lines).allSatisfy(l -> assertThat(l.getString("level")).isIn("INFO", "WARN", "ERROR"));
      assertThat(lines).as("the app's own lines").anySatisfy(l -> assertThat(l.getString("loggerName"))
          .startsWith("io.shotstash.").isNotEqualTo("io.shotstash.access"));

      JsonObject access = lines.stream()
          .filter(l -> "io.shotstash.access".equals(l.getString("loggerName")))
          .filter(l -> traceId.equals(kvp(l, "traceId").orElse(null))).findFirst()
          .orElseThrow(() -> new AssertionError("no access line with trace id " + traceId + " in " + lines));
      assertThat(kvp(access, "method")).contains("GET");
      assertThat(kvp(access, "route")).contains("/api/people/:slug");
      assertThat(kvp(access, "status")).contains("404");
      assertThat(kvp(access, "actor")).contains("anonymous");
      assertThat(kvp(access, "durationMs")).isPresent();
      assertThat(kvp(access, "jobId")).as("not a job's route").isEmpty();
      assertThat(access.getString("formattedMessage")).startsWith("GET /api/people/:slug 404 ")
          .doesNotContain("nobody-here");
    } finally {
      deleteTree(folder);
    }
  }

  /** Every non-empty line of the log, each of which must be a JSON object. */
  private static List<JsonObject> jsonLines(List<String> raw) {
    List<JsonObject> out = new ArrayList<>();
    for (String line : raw) {
      if (line.isBlank()) {
        continue;
      }
      try {
        out.add(new JsonObject(line));
      } catch (DecodeException e) {
        throw new AssertionError("not a JSON object: " + line, e);
      }
    }
    return out;
  }

  /** A key-value pair of a line: logback writes them as a list of one-key objects. */
  private static Optional<String> kvp(JsonObject line, String key) {
    JsonArray pairs = line.getJsonArray("kvpList", new JsonArray());
    return pairs.stream().map(JsonObject.class::cast).filter(p -> p.containsKey(key))
        .map(p -> String.valueOf(p.getValue(key))).findFirst();
  }

  private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(base(port) + path))
        .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String base(int port) {
    return "http://127.0.0.1:" + port;
  }

  private void awaitReady(AppProcess app, int port) throws InterruptedException {
    long deadline = System.nanoTime() + START.toNanos();
    while (true) {
      assertThat(app.isAlive()).as("the app runs; its log:\n%s", app.output()).isTrue();
      try {
        if (get(port, "/ready").statusCode() == 200) {
          return;
        }
      } catch (IOException e) { // not listening yet
      }
      assertThat(System.nanoTime()).as("ready within %d s; log:\n%s", START.toSeconds(), app.output())
          .isLessThan(deadline);
      Thread.sleep(200);
    }
  }

  private static int freePort() {
    return AppProcess.closedPort();
  }

  private static void deleteTree(Path root) throws IOException {
    try (var paths = Files.walk(root)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
