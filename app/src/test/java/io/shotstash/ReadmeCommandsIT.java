package io.shotstash;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.AppProcess;
import io.shotstash.testing.ClusterNodes;
import io.shotstash.testing.Repo;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's commands, run as written so they cannot go stale: the run command's {@code java -jar}
 * (the build that runs this test made the jar), then every {@code sh} block from the setup command to
 * the marker {@code <!-- ReadmeCommandsIT: end ...}, in order, with bash, in one fresh folder. The test
 * command ({@code mvn -B -ntp verify}) is what {@code .ci/run} runs; this test checks that it still
 * says so. A {@code sh} block after the marker must name what runs it ({@code run by: X} in the comment
 * just above it, X a test class or {@code .ci/run}).
 *
 * <p>What is substituted, and nothing else:
 * <ul>
 *   <li>{@code localhost:3005} → {@code 127.0.0.1:<a free port>}, and the app and the worker get that
 *       port through {@code SHOTSTASH_HTTP_PORT} / {@code SHOTSTASH_URL};</li>
 *   <li>{@code <token from the log>} → the setup token the app printed in its log;</li>
 *   <li>{@code target/shotstash.jar} → a copy of the built jar (a rebuild meanwhile cannot pull classes
 *       from under the app);</li>
 *   <li>the app's database and data folder: a database of this test's own ({@code DATABASE_URL}) and a
 *       folder under {@code target/} ({@code SHOTSTASH_DATA_DIR}), as every test has.</li>
 * </ul>
 * A block that starts {@code target/shotstash.jar ... worker} runs in the background (the second
 * terminal); a block that starts the app stops the running app first (Ctrl-C: SIGTERM) and waits until
 * the new one is ready; every other block must exit 0. Blocks share their shell variables (each block's
 * exported state is read by the next), and {@code curl} runs with {@code --fail-with-body}, so a
 * refusal fails the block that got it.
 */
@Timeout(600)
class ReadmeCommandsIT {
  static final Path README = Repo.path("README.md");
  static final Path CI = Repo.path(".ci/run");
  static final String END = "<!-- ReadmeCommandsIT: end";
  static final String JAR = "target/shotstash.jar";
  static final Pattern SH = Pattern.compile("(?ms)^```sh\\n(.*?)^```$");
  static final Pattern SETUP_TOKEN = Pattern.compile("X-Setup-Token: (\\S+)");
  static final Pattern PAGE_URL = Pattern.compile("http://localhost:3005(/[A-Za-z0-9/._-]*)");

  /** A fenced sh block: where it starts (for messages) and its text. */
  record Block(int line, int offset, String text) {
    boolean startsApp() {
      return text.contains(JAR) && !startsWorker();
    }

    boolean startsWorker() {
      return text.matches("(?s).*" + Pattern.quote(JAR) + "\\s+worker\\b.*");
    }
  }

  private Vertx vertx;
  private WebClient probe;
  private Path work;
  private TestDatabase db;
  private int port;
  private final List<Process> background = new ArrayList<>();
  private Process app;
  private Path appLog;
  private int started;

  static List<Block> blocks(String readme) {
    List<Block> out = new ArrayList<>();
    Matcher m = SH.matcher(readme);
    while (m.find()) {
      int line = (int) readme.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
      out.add(new Block(line, m.start(), m.group(1)));
    }
    return out;
  }

  @AfterEach
  void stopEverything() {
    for (Process p : background) {
      stop(p);
    }
    if (db != null) {
      db.close();
    }
    if (vertx != null) {
      probe.close();
      vertx.close().await();
    }
    if (work != null) {
      // the logs stay under target/ for a failure's reader; the data, the jar and the videos go
      for (String dir : new String[]{"data", "shell", "tmp"}) {
        delete(work.resolve(dir));
      }
      delete(work.resolve("shotstash.jar"));
    }
  }

  @Test
  void everyCommandOfTheReadmeRunsAsWritten() throws Exception {
    String readme = Files.readString(README);
    List<Block> blocks = blocks(readme);
    int end = readme.indexOf(END);
    assertThat(end).as("README.md has the marker %s", END).isPositive();
    assertThat(blocks.size()).as("README.md's sh blocks").isGreaterThan(3);
    coveredElsewhere(readme, blocks, end);

    // the two commands: run (its java -jar runs here), test (.ci/run runs it)
    String run = blocks.get(0).text().strip();
    String javaJar = run.substring(run.lastIndexOf("&&") + 2).strip();
    assertThat(javaJar).as("the run command ends by starting the jar: %s", run).startsWith("java -jar " + JAR);
    String test = blocks.get(1).text().strip();
    assertThat(Files.readString(CI)).as(".ci/run runs the README's test command").contains(test);
    ffmpegIsInstalled();

    vertx = Vertx.vertx();
    probe = WebClient.create(vertx);
    work = Files.createTempDirectory(ClusterNodes.jar().getParent(), "readme-it-");
    Files.createDirectories(work.resolve("shell"));
    Files.createDirectories(work.resolve("tmp"));
    Path jar = Files.copy(ClusterNodes.jar(), work.resolve("shotstash.jar"));
    db = TestDatabase.create();
    port = freePort();
    WebClient http = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port));

    startApp(new Block(blocks.get(0).line(), blocks.get(0).offset(), javaJar.replace(JAR, jar.toString())), jar);
    HttpResponse<Buffer> first = http.get("/").send().await();
    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.bodyAsString()).as("before setup, / says how to finish it")
        .contains("Finish setting up Shotstash").contains("<code>First-run setup:</code>");
    String token = setupToken();

    List<Block> walk = blocks.stream().skip(2).filter(b -> b.offset() < end).toList();
    assertThat(walk).as("the walk-through after setup").isNotEmpty();
    for (Block block : walk) {
      String text = block.text().replace("localhost:3005", "127.0.0.1:" + port)
          .replace("<token from the log>", token).replace(JAR, jar.toString());
      Block b = new Block(block.line(), block.offset(), text);
      // told apart as written (the substitution replaces the jar's path)
      if (block.startsWorker()) {
        background.add(start(b, "worker"));
      } else if (block.startsApp()) {
        startApp(b, jar);
      } else {
        runToTheEnd(b);
      }
    }

    // what the walk-through did: every upload sits in a folder, and every job it queued was done
    assertThat(db.number("SELECT count(*) FROM media_files")).isPositive();
    assertThat(db.number("SELECT count(*) FROM media_files WHERE folder_id IS NULL")).isZero();
    assertThat(db.number("SELECT count(*) FROM pipeline_jobs WHERE status = 'done'")).isPositive();
    assertThat(db.number("SELECT count(*) FROM pipeline_jobs WHERE status <> 'done'")).isZero();

    // every page the README names answers, to the administrator it set up
    JsonObject setup = setupBody(walk.get(0).text());
    HttpResponse<Buffer> login = http.post("/api/auth/login").sendJsonObject(new JsonObject()
        .put("login", setup.getString("slug")).put("password", setup.getString("password"))).await();
    assertThat(login.statusCode()).as(login.bodyAsString()).isEqualTo(200);
    String session = login.bodyAsJsonObject().getJsonObject("data").getString("token");
    Set<String> pages = new LinkedHashSet<>();
    Matcher urls = PAGE_URL.matcher(prose(readme));
    while (urls.find()) {
      pages.add(urls.group(1));
    }
    assertThat(pages).contains("/", "/login", "/admin/jobs", "/admin/members", "/graphiql");
    for (String page : pages) {
      HttpResponse<Buffer> r = http.get(page).bearerTokenAuthentication(session).send().await();
      assertThat(r.statusCode()).as("GET %s", page).isEqualTo(200);
      assertThat(r.getHeader("Content-Type")).as("GET %s", page).startsWith("text/html");
    }
    http.close();
  }

  /** A sh block after the marker names what runs it, and that exists. */
  static void coveredElsewhere(String readme, List<Block> blocks, int end) {
    for (Block b : blocks) {
      if (b.offset() < end) {
        continue;
      }
      String before = readme.substring(Math.max(end, readme.lastIndexOf("<!--", b.offset())), b.offset());
      Matcher m = Pattern.compile("run by: ([A-Za-z0-9_./]+)").matcher(before);
      assertThat(m.find()).as("README.md line %d: a sh block no test runs (name one: run by: X)", b.line()).isTrue();
      String by = m.group(1);
      boolean exists = by.equals(".ci/run") ? Files.isRegularFile(CI) : findsClass(by);
      assertThat(exists).as("README.md line %d is run by %s, which does not exist", b.line(), by).isTrue();
    }
  }

  static boolean findsClass(String simpleName) {
    // every module's tests (app/, worker-verticle/, ...)
    try (Stream<Path> modules = Files.list(Repo.root())) {
      return modules.map(m -> m.resolve("src/test/java")).filter(Files::isDirectory).anyMatch(tests -> {
        try (Stream<Path> files = Files.walk(tests)) {
          return files.anyMatch(p -> p.getFileName().toString().equals(simpleName + ".java"));
        } catch (IOException e) {
          return false;
        }
      });
    } catch (IOException e) {
      return false;
    }
  }

  /** The README without its fenced blocks (the prose's links). */
  static String prose(String readme) {
    return readme.replaceAll("(?ms)^```.*?^```$", "");
  }

  /** The JSON body of the setup command ({@code -d '{...}'}). */
  static JsonObject setupBody(String setupBlock) {
    Matcher m = Pattern.compile("-d '(\\{.*?\\})'", Pattern.DOTALL).matcher(setupBlock);
    assertThat(m.find()).as("the setup command sends its body with -d: %s", setupBlock).isTrue();
    return new JsonObject(m.group(1));
  }

  static void ffmpegIsInstalled() {
    for (String tool : new String[]{"ffmpeg", "ffprobe"}) {
      boolean found = Stream.of(System.getenv("PATH").split(":")).anyMatch(d -> Files.isExecutable(Path.of(d, tool)));
      assertThat(found).as("%s is missing: install Debian's ffmpeg package (apt-get install -y ffmpeg)", tool).isTrue();
    }
  }

  // ---- the shell ----

  /** bash with the README's shell rules: stop at the first failure, curl fails on a refusal, variables carry over. */
  private String script(Block b, boolean keepState) {
    return "set -euo pipefail\nset -a\n"
        + "if [ -f ../state.sh ]; then source ../state.sh; fi\n"
        + "curl() { command curl --fail-with-body \"$@\"; }\n"
        + b.text() + "\n"
        + (keepState ? "export -p > ../state.sh\n" : "");
  }

  private ProcessBuilder bash(Block b, String name, boolean keepState) {
    Path log = work.resolve(name + ".log");
    ProcessBuilder pb = new ProcessBuilder("bash", "-c", script(b, keepState)).directory(work.resolve("shell").toFile())
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("SHOTSTASH_") || k.startsWith("WORKER_") || k.equals("DATABASE_URL"));
    env.put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + env.get("PATH"));
    env.putAll(AppProcess.baseEnv(port, work.resolve("data"), work));
    env.put("DATABASE_URL", db.databaseUrl());
    env.put("SHOTSTASH_URL", "http://127.0.0.1:" + port);
    env.put("WORKER_HEALTH_PORT", "0");
    env.put("WORKER_TMP_DIR", work.resolve("tmp").toString());
    env.put("XDG_CONFIG_HOME", work.resolve("tmp").toString());
    env.put("JAVA_TOOL_OPTIONS", "-Xmx384m -Djava.io.tmpdir=" + work.resolve("tmp"));
    return pb;
  }

  private Process start(Block b, String name) throws IOException {
    return bash(b, name, false).start();
  }

  private void runToTheEnd(Block b) throws Exception {
    String name = "block-line-" + b.line();
    Process p = bash(b, name, true).start();
    boolean ended = p.waitFor(300, TimeUnit.SECONDS);
    if (!ended) {
      stop(p);
    }
    String output = Files.readString(work.resolve(name + ".log"));
    assertThat(ended)
        .as("README.md line %d did not end within 300 s:%n%s%noutput:%n%s%napp log: %s", b.line(), b.text(),
            output, appLog)
        .isTrue();
    assertThat(p.exitValue()).as("README.md line %d failed:%n%s%noutput:%n%s%napp log: %s", b.line(), b.text(), output,
        appLog).isZero();
  }

  /** Stops the running app as Ctrl-C does, starts the block's, waits until it is ready. */
  private void startApp(Block b, Path jar) throws IOException {
    if (app != null) {
      stop(app);
      background.remove(app);
    }
    String name = "app-" + ++started;
    app = start(b, name);
    background.add(app);
    appLog = work.resolve(name + ".log");
    Process running = app;
    eventually("the app (README.md line " + b.line() + ") to be ready, see " + appLog, Duration.ofSeconds(120), () -> {
      assertThat(running.isAlive()).as("the app stopped; its log: %s", appLog).isTrue();
      return ready();
    });
  }

  private boolean ready() {
    try {
      return probe.get(port, "127.0.0.1", "/ready").timeout(2_000).send().await().statusCode() == 200;
    } catch (Exception e) { // refused or timed out: not ready yet
      return false;
    }
  }

  /** The token the app printed on its first-run setup line. */
  private String setupToken() {
    String[] token = new String[1];
    eventually("the setup token in " + appLog, Duration.ofSeconds(30), () -> {
      try {
        Matcher m = SETUP_TOKEN.matcher(Files.readString(appLog));
        if (m.find()) {
          token[0] = m.group(1);
        }
        return token[0] != null;
      } catch (IOException e) {
        return false;
      }
    });
    return token[0];
  }

  /** SIGTERM to the process and everything it started (Ctrl-C in a terminal), then SIGKILL after 30 s. */
  private static void stop(Process p) {
    List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
    tree.add(p.toHandle());
    tree.forEach(ProcessHandle::destroy);
    for (ProcessHandle h : tree) {
      try {
        h.onExit().get(30, TimeUnit.SECONDS);
      } catch (Exception e) { // not ended in time (or the wait was cut short): force it
        h.destroyForcibly();
      }
    }
  }

  private void eventually(String what, Duration within, BooleanSupplier condition) {
    long deadline = System.nanoTime() + within.toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("not within %d s: %s", within.toSeconds(), what).isLessThan(deadline);
      vertx.timer(200, TimeUnit.MILLISECONDS).await();
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static void delete(Path path) {
    if (!Files.exists(path)) {
      return;
    }
    try (Stream<Path> files = Files.walk(path)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    } catch (IOException e) {
      // a leftover under target/ is harmless
    }
  }
}
