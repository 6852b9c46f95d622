package io.shotstash.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.AppProcess;
import io.shotstash.testing.ClusterNodes;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real jar on a machine where no PostgreSQL answers for it (issue #16): no DATABASE_URL and the
 * default address pointed at a closed port ({@code SHOTSTASH_DEFAULT_DATABASE_PORT}), so the app
 * must start its embedded PostgreSQL in {@code <data dir>/postgres}, keep it across a SIGTERM and a
 * restart, and stop it cleanly; and the commands that must never embed do not.
 *
 * <p>Runs in {@code mvn verify} (Failsafe, after the jar is built); {@code .ci/run} relies on it to
 * prove the start without a server.
 */
class EmbeddedDatabaseIT {
  private static final Pattern SETUP_TOKEN = Pattern.compile("X-Setup-Token: (\\S+)");
  private static final Duration START = Duration.ofSeconds(180);
  private static final String PASSWORD = "a long password 123";

  private Vertx vertx;
  private Path folder;
  private Path dataDir;
  private Path log;
  private int httpPort;
  private int closedPort;

  @BeforeEach
  void folders() throws IOException {
    vertx = Vertx.vertx();
    folder = Files.createTempDirectory(ClusterNodes.jar().getParent(), "embedded-it-");
    dataDir = folder.resolve("data");
    log = folder.resolve("app.log");
    httpPort = AppProcess.closedPort();
    closedPort = AppProcess.closedPort();
  }

  @AfterEach
  void cleanUp() throws IOException {
    vertx.close().await();
    // the log stays under target/ for a failed run; the data (a whole PostgreSQL cluster) goes
    if (Files.exists(dataDir)) {
      try (Stream<Path> files = Files.walk(dataDir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** No DATABASE_URL, nothing at the default address: what a fresh machine looks like to the app. */
  private Map<String, String> freshMachine() {
    Map<String, String> env = AppProcess.baseEnv(httpPort, dataDir, folder);
    env.put("SHOTSTASH_DEFAULT_DATABASE_PORT", Integer.toString(closedPort));
    return env;
  }

  @Test
  @Timeout(600)
  void startsOnTheEmbeddedDatabaseKeepsItAcrossSigtermAndRestartAndStopsItCleanly() {
    WebClient http =
        WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(httpPort));
    Path cluster = dataDir.resolve("postgres");
    try (AppProcess first = AppProcess.start(log, freshMachine(), "serve")) {
      awaitReady(http, first);
      assertThat(first.output())
          .contains("no PostgreSQL answers at 127.0.0.1:" + closedPort + ": using the embedded PostgreSQL")
          .contains("set DATABASE_URL=postgresql://");
      assertThat(cluster.resolve("PG_VERSION")).isRegularFile();

      Matcher token = SETUP_TOKEN.matcher(first.output());
      assertThat(token.find()).as("the setup token in the log").isTrue();
      HttpResponse<Buffer> setup = http.post("/api/setup").putHeader("X-Setup-Token", token.group(1))
          .sendJsonObject(new JsonObject().put("slug", "ada").put("fullName", "Ada Lovelace")
              .put("email", "ada@example.org").put("password", PASSWORD))
          .await();
      assertThat(setup.statusCode()).as(setup.bodyAsString()).isEqualTo(201);
      assertThat(login(http)).isEqualTo(200);

      assertThat(first.stop(Duration.ofSeconds(60))).as("exit status after SIGTERM").isIn(0, 143);
    }
    // stopped cleanly: PostgreSQL removes its pid file only on a clean shutdown
    assertThat(cluster.resolve("postmaster.pid")).doesNotExist();
    assertThat(log).content().contains("The embedded PostgreSQL stopped");

    // migrate chooses the same way, starts the same cluster and stops it again
    AppProcess.Result migrate = AppProcess.run(folder.resolve("migrate.log"), START, freshMachine(), "migrate");
    assertThat(migrate.exit()).as(migrate.output()).isZero();
    assertThat(migrate.output()).contains("(embedded) is up to date (0 migrations applied now)");
    assertThat(cluster.resolve("postmaster.pid")).doesNotExist();

    try (AppProcess second = AppProcess.start(log, freshMachine(), "serve")) {
      awaitReady(http, second);
      assertThat(login(http)).as("the administrator made before the restart signs in").isEqualTo(200);
      assertThat(second.stop(Duration.ofSeconds(60))).isIn(0, 143);
    }
    assertThat(cluster.resolve("postmaster.pid")).doesNotExist();
  }

  @Test
  @Timeout(120)
  void aClusterNodeNeverStartsTheEmbeddedDatabase() {
    AppProcess.Result r = AppProcess.run(log, Duration.ofSeconds(90), freshMachine(), "serve", "--cluster");
    assertThat(r.exit()).as(r.output()).isEqualTo(1);
    assertThat(r.plainLines()).singleElement().asString()
        .startsWith("serve --cluster needs a PostgreSQL server that every node shares")
        .contains("DATABASE_URL");
    assertThat(dataDir.resolve("postgres")).doesNotExist();
  }

  @Test
  @Timeout(120)
  void aDatabaseUrlThatDoesNotAnswerIsAnErrorNeverTheEmbeddedDatabase() {
    Map<String, String> env = new HashMap<>(freshMachine());
    env.put("DATABASE_URL", "postgresql://postgres@127.0.0.1:" + closedPort + "/shotstash");
    AppProcess.Result r = AppProcess.run(log, Duration.ofSeconds(90), env, "serve");
    assertThat(r.exit()).as(r.output()).isEqualTo(1);
    assertThat(r.output()).contains("PostgreSQL does not answer at 127.0.0.1:" + closedPort)
        .doesNotContain("embedded").doesNotContain("\tat ");
    assertThat(dataDir.resolve("postgres")).doesNotExist();
  }

  @Test
  @Timeout(180)
  void whereUserNamespacesAreBlockedRootIsToldWhatToDoInOneLine() throws IOException {
    // an unshare that fails the way a blocked one does (a container's seccomp profile, or
    // user.max_user_namespaces = 0), first on the PATH
    Path bin = Files.createDirectories(folder.resolve("blocked-bin"));
    Path unshare = bin.resolve("unshare");
    Files.writeString(unshare, "#!/bin/sh\necho 'unshare: unshare failed: Operation not permitted' >&2\nexit 1\n");
    assertThat(unshare.toFile().setExecutable(true)).isTrue();
    Map<String, String> env = new HashMap<>(freshMachine());
    env.put("PATH", bin + ":" + System.getenv("PATH"));
    AppProcess.Result r = AppProcess.run(log, Duration.ofSeconds(150), env, "migrate");
    if (new com.sun.security.auth.module.UnixSystem().getUid() == 0) {
      // PostgreSQL refuses root, and root has no namespace to run it in: say what to do, start nothing
      assertThat(r.exit()).as(r.output()).isEqualTo(1);
      assertThat(r.plainLines()).singleElement().asString()
          .contains("this machine blocks the user namespace")
          .contains("set DATABASE_URL=postgresql://")
          .contains("run Shotstash as a user other than root");
      assertThat(r.output()).doesNotContain("\tat ");
      assertThat(dataDir.resolve("postgres")).doesNotExist();
    } else {
      // an ordinary user needs no namespace: the embedded database starts all the same
      assertThat(r.exit()).as(r.output()).isZero();
      assertThat(r.output()).contains("(embedded) is up to date");
    }
  }

  private int login(WebClient http) {
    return http.post("/api/auth/login").sendJsonObject(new JsonObject().put("login", "ada").put("password", PASSWORD))
        .await().statusCode();
  }

  /** Polls GET /ready (on a Vert.x timer between tries) until 200; fails if the app exits or takes too long. */
  private void awaitReady(WebClient http, AppProcess app) {
    long deadline = System.nanoTime() + START.toNanos();
    while (true) {
      assertThat(app.isAlive()).as("the app runs; its log:\n%s", app.output()).isTrue();
      try {
        if (http.get("/ready").timeout(2_000).send().await().statusCode() == 200) {
          return;
        }
      } catch (Exception e) { // refused or timed out: not up yet (await rethrows checked failures as they are)
      }
      assertThat(System.nanoTime()).as("ready within %d s; log:\n%s", START.toSeconds(), app.output())
          .isLessThan(deadline);
      vertx.timer(200, TimeUnit.MILLISECONDS).await();
    }
  }
}
