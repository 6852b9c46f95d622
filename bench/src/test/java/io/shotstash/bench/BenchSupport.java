package io.shotstash.bench;

import io.shotstash.db.Database;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the pipeline benchmarks share: the machine facts, running outside commands with a time
 * limit, the real app started as its own process ({@code java -jar shotstash.jar}), and replacing
 * one {@code ## } section of docs/benchmarks.md.
 */
final class BenchSupport {
  static final String SETUP_TOKEN = "bench-setup-token-0123456789";
  static final String BOOTSTRAP_TOKEN = "bench-bootstrap-token-0123456789abcdef";
  static final String ADMIN_PASSWORD = "bench admin password 123";

  private static final java.util.concurrent.atomic.AtomicInteger NEXT_ADDRESS =
      new java.util.concurrent.atomic.AtomicInteger();

  private BenchSupport() {}

  /**
   * A loopback source address no other worker of this run used (127.1.0.1, 127.1.0.2, ...): each
   * worker calls from its own, so the contract's per-IP limit (6,000 calls/min) never applies and
   * only the per-worker limit does.
   */
  static String nextLoopback() {
    int n = NEXT_ADDRESS.getAndIncrement();
    return "127.1." + (n / 250) + "." + (1 + n % 250);
  }

  /** What {@link #closeAll()} closes, newest first: apps and databases a benchmark started. */
  private static final List<AutoCloseable> OPEN = new ArrayList<>();

  /** Remembers {@code thing} for {@link #closeAll()} (at the end, or from a shutdown hook if the run is cut short). */
  static <T extends AutoCloseable> T open(T thing) {
    synchronized (OPEN) {
      OPEN.add(thing);
    }
    return thing;
  }

  /** Closes what {@link #open} remembered, newest first, then ends whatever else this JVM started. */
  static void closeAll() {
    List<AutoCloseable> all;
    synchronized (OPEN) {
      all = new ArrayList<>(OPEN);
      OPEN.clear();
    }
    for (int i = all.size() - 1; i >= 0; i--) {
      try {
        all.get(i).close();
      } catch (Exception e) {
        log("closing %s: %s", all.get(i).getClass().getSimpleName(), e.getMessage());
      }
    }
    // whatever else this JVM started (nginx, jstat, node, pgbench, the app) if the run was cut short
    ProcessHandle.current().descendants().forEach(ProcessHandle::destroy);
  }

  static void log(String format, Object... args) {
    System.out.printf(Locale.ROOT, "[%6.1fs] %s%n", (System.nanoTime() - PipelineBench.STARTED) / 1e9,
        String.format(Locale.ROOT, format, args));
  }

  // ------------------------------------------------------------------------------------ commands

  /** What a finished command printed. */
  record Output(int exit, String stdout, String stderr) {
    String all() {
      return stdout + stderr;
    }
  }

  /** Runs a command to its end, at most {@code timeout}; its output is kept in memory (keep it small). */
  static Output run(Duration timeout, Map<String, String> env, Path dir, String... command)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command);
    if (dir != null) {
      pb.directory(dir.toFile());
    }
    pb.environment().putAll(env);
    Path out = Files.createTempFile("bench-out", ".txt");
    Path err = Files.createTempFile("bench-err", ".txt");
    try {
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      Process p = pb.start();
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s: " + String.join(" ", command));
      }
      return new Output(p.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  static Output run(Duration timeout, String... command) throws IOException, InterruptedException {
    return run(timeout, Map.of(), null, command);
  }

  /** Runs a command that must succeed; returns its standard output. */
  static String must(Duration timeout, String... command) throws IOException, InterruptedException {
    Output o = run(timeout, command);
    if (o.exit() != 0) {
      throw new IllegalStateException(String.join(" ", command) + " exited " + o.exit() + ": " + o.all().strip());
    }
    return o.stdout();
  }

  /** First line of a command's output, or "?" when it is missing. */
  static String firstLine(String... command) {
    try {
      Output o = run(Duration.ofSeconds(20), command);
      return o.all().lines().filter(l -> !l.isBlank()).findFirst().orElse("?").strip();
    } catch (IOException | RuntimeException e) {
      return "?";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "?";
    }
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temporary folder is harmless; the script removes its work folder anyway
    }
  }

  // ------------------------------------------------------------------------------------ the app

  /**
   * The real app as a separate process: {@code java [jvmArgs] -jar shotstash.jar serve} on a fresh
   * database of its own (dropped at the end) and a fresh data folder, on 127.0.0.1 and a free port.
   * Every other setting keeps its default (pool of 8, one HTTP verticle per core, the contract's
   * rate limits).
   */
  static final class AppProcess implements AutoCloseable {
    final TestDatabase db;
    final Path dataDir;
    final int port;
    final Process process;
    final Path logFile;
    final WebClient client;
    String adminToken;
    /** The folder the bench's uploads go to (an upload needs one), made at the first ask. */
    private String folder;

    AppProcess(Vertx clientVertx, Path jar, Path work, String name, List<String> jvmArgs) throws Exception {
      db = TestDatabase.create();
      dataDir = Files.createDirectories(work.resolve("app-" + name));
      port = freePort();
      logFile = work.resolve("app-" + name + ".log");
      List<String> command = new ArrayList<>(List.of("java"));
      command.addAll(jvmArgs);
      command.addAll(List.of("-Djava.io.tmpdir=" + Files.createDirectories(dataDir.resolve("tmp")), "-jar",
          jar.toString(), "serve"));
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(logFile.toFile());
      Map<String, String> env = pb.environment();
      env.put("DATABASE_URL", db.databaseUrl());
      env.put("SHOTSTASH_HTTP_HOST", "127.0.0.1");
      env.put("SHOTSTASH_HTTP_PORT", Integer.toString(port));
      env.put("SHOTSTASH_DATA_DIR", dataDir.toString());
      env.put("SHOTSTASH_SETUP_TOKEN", SETUP_TOKEN);
      env.put("WORKER_BOOTSTRAP_TOKEN", BOOTSTRAP_TOKEN);
      env.put("XDG_CONFIG_HOME", Files.createDirectories(dataDir.resolve("xdg")).toString());
      process = pb.start();
      client = WebClient.create(clientVertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port),
          new io.vertx.core.http.PoolOptions().setHttp1MaxSize(4));
      awaitHealthy();
      log("app '%s' (pid %d) listens on 127.0.0.1:%d, database %s", name, process.pid(), port, db.url().database());
    }

    private void awaitHealthy() throws Exception {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException("the app stopped at start; see " + logFile + ":\n" + tail(logFile));
        }
        try {
          var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
              .timeout(Duration.ofSeconds(2)).build(), java.net.http.HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() == 200) {
            return;
          }
        } catch (IOException e) {
          // not listening yet
        }
        Thread.sleep(200);
      }
      throw new IllegalStateException("the app did not answer /health in 90 s; see " + logFile);
    }

    static String tail(Path file) {
      try {
        List<String> lines = Files.readAllLines(file);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
      } catch (IOException e) {
        return "(no log)";
      }
    }

    long pid() {
      return process.pid();
    }

    String baseUrl() {
      return "http://127.0.0.1:" + port;
    }

    /** The id of a folder for uploads, as the administrator (after {@link #setupAndLogin()}). */
    String folderId() {
      if (folder == null) {
        folder = io.shotstash.testing.Folders.create(client, adminToken, "bench inputs");
      }
      return folder;
    }

    /** First-run setup (an administrator), then a bearer token for her. */
    String setupAndLogin() {
      HttpResponse<Buffer> r = client.post("/api/setup").putHeader("X-Setup-Token", SETUP_TOKEN)
          .sendJsonObject(new JsonObject().put("slug", "ada").put("fullName", "Ada Admin")
              .put("email", "ada@example.org").put("password", ADMIN_PASSWORD))
          .await();
      if (r.statusCode() != 201) {
        throw new IllegalStateException("setup failed: " + r.statusCode() + " " + r.bodyAsString());
      }
      HttpResponse<Buffer> login = client.post("/api/auth/login")
          .sendJsonObject(new JsonObject().put("login", "ada").put("password", ADMIN_PASSWORD)).await();
      if (login.statusCode() != 200) {
        throw new IllegalStateException("login failed: " + login.bodyAsString());
      }
      adminToken = login.bodyAsJsonObject().getJsonObject("data").getString("token");
      return adminToken;
    }

    Connection jdbc() throws SQLException {
      return Database.connect(db.url());
    }

    @Override
    public void close() {
      client.close();
      process.destroy();
      try {
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
          process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
      }
      try {
        db.close();
      } catch (RuntimeException e) {
        log("could not drop %s: %s", db.url().database(), e.getMessage());
      }
      deleteTree(dataDir);
    }
  }

  /** Transactions PostgreSQL counted for one database (commits + rollbacks), read from the postgres database. */
  static long transactions(TestDatabase db) throws SQLException {
    try (Connection c = Database.connect(db.url().withDatabase("postgres"));
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '"
            + db.url().database() + "'")) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  // ------------------------------------------------------------------------------------ machine facts

  record Machine(String date, int cores, String cpu, String memory, String java, String postgres,
      Map<String, String> settings, String disk, double fdatasyncPerSecond, double busyBefore, String commit) {

    static Machine probe(Path work) throws Exception {
      String cpu = cpuModel();
      String memory = memoryTotal();
      String java = System.getProperty("bench.javaVersion");
      if (java == null || java.isBlank()) {
        java = System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version");
      }
      String postgres;
      Map<String, String> settings = new LinkedHashMap<>();
      try (TestDatabase db = TestDatabase.create();
          Connection c = Database.connect(db.url());
          Statement s = c.createStatement()) {
        try (ResultSet rs = s.executeQuery("SELECT version()")) {
          rs.next();
          postgres = rs.getString(1).replaceAll(" on .*", "");
        }
        for (String name : List.of("fsync", "synchronous_commit", "wal_sync_method", "shared_buffers",
            "max_connections")) {
          try (ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            settings.put(name, rs.getString(1));
          }
        }
      }
      String commit = System.getProperty("bench.commit", "?");
      return new Machine(LocalDate.now(ZoneOffset.UTC).toString(), Runtime.getRuntime().availableProcessors(), cpu,
          memory,
          java, postgres, settings, disk(work), fdatasyncRate(work), busyFraction(2_000), commit);
    }

    /** The CPU's model name from /proc/cpuinfo, or "?" off Linux. */
    static String cpuModel() {
      try (Stream<String> lines = Files.lines(Path.of("/proc/cpuinfo"))) {
        return lines.filter(l -> l.startsWith("model name")).findFirst()
            .map(l -> l.substring(l.indexOf(':') + 1).strip()).orElse("?");
      } catch (IOException ignored) {
        return "?";
      }
    }

    /** MemTotal from /proc/meminfo in GiB, or "?" off Linux. */
    static String memoryTotal() {
      try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
        return lines.filter(l -> l.startsWith("MemTotal")).findFirst()
            .map(l -> String.format(Locale.ROOT, "%.1f GiB",
                Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024.0 / 1024.0))
            .orElse("?");
      } catch (IOException ignored) {
        return "?";
      }
    }

    /** The file system the work folder (and the app's data, and dd's file) lives on. */
    static String disk(Path work) {
      String df = firstLineAfterHeader("df", "-hT", work.toString());
      String[] f = df.split("\\s+");
      if (f.length < 7) {
        return df;
      }
      String device = f[0].replaceFirst("^/dev/", "");
      String rotational = "?";
      try {
        rotational =
            Files.readString(Path.of("/sys/block/" + device.replaceAll("[0-9]+$", "") + "/queue/rotational")).strip();
      } catch (IOException e) {
        // not a plain block device
      }
      return String.format(Locale.ROOT, "%s (%s, %s, %s free; rotational flag %s)", f[0], f[1], f[2], f[4], rotational);
    }

    private static String firstLineAfterHeader(String... command) {
      try {
        Output o = run(Duration.ofSeconds(10), command);
        return o.stdout().lines().skip(1).findFirst().orElse("?").strip();
      } catch (Exception e) {
        return "?";
      }
    }

    /** Share of all cores busy over {@code millis} while this process idles: what other work loads the machine. */
    static double busyFraction(long millis) throws InterruptedException {
      long[] a = cpuTicks();
      Thread.sleep(millis);
      long[] b = cpuTicks();
      long total = b[0] - a[0];
      return total <= 0 ? Double.NaN : (double) ((b[0] - b[1]) - (a[0] - a[1])) / total;
    }

    /** Total and idle (idle + iowait) jiffies from /proc/stat. */
    static long[] cpuTicks() {
      try {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < f.length; i++) {
          total += Long.parseLong(f[i]);
        }
        return new long[]{total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
      } catch (IOException | RuntimeException e) {
        return new long[]{0, 0};
      }
    }

    /** 8 kB write + fdatasync for one second in the work folder (as pg_test_fsync does). */
    static double fdatasyncRate(Path work) throws IOException {
      Path file = Files.createTempFile(work, "fdatasync", ".bench");
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
        ByteBuffer page = ByteBuffer.allocate(8192);
        long start = System.nanoTime();
        long end = start + 1_000_000_000L;
        int count = 0;
        while (System.nanoTime() < end) {
          page.clear();
          ch.write(page, 0);
          ch.force(false);
          count++;
        }
        return count / ((System.nanoTime() - start) / 1e9);
      } finally {
        Files.deleteIfExists(file);
      }
    }

    /** The same machine, with the share of the cores other work kept busy just before a part. */
    Machine withBusy(double busy) {
      return new Machine(date, cores, cpu, memory, java, postgres, settings, disk, fdatasyncPerSecond, busy, commit);
    }

    /** The machine lines every section starts with. */
    String markdown() {
      return String.format(Locale.ROOT, "- Machine: %d cores (%s), %s RAM; disk %s; fdatasync of an 8 kB write %,.0f/s;"
          + " other work kept %.0f%% of the cores busy just before this part%n"
          + "- %s%n"
          + "- %s (local, trust auth): `fsync` = %s, `synchronous_commit` = %s, `wal_sync_method` = %s,"
          + " `shared_buffers` = %s, `max_connections` = %s%n"
          + "- Code: %s%n",
          cores, cpu, memory, disk, fdatasyncPerSecond, 100 * busyBefore, java, postgres, settings.get("fsync"),
          settings.get("synchronous_commit"), settings.get("wal_sync_method"), settings.get("shared_buffers"),
          settings.get("max_connections"), commit);
    }
  }

  // ------------------------------------------------------------------------------------ the report

  static String median(List<Double> values) {
    return String.format(Locale.ROOT, "%,.0f", medianOf(values));
  }

  static double medianOf(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    sorted.sort(Double::compare);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** Replaces this benchmark's {@code ## } section (up to the next {@code ## } heading), or appends it; other sections stay. */
  static void replaceSection(Path file, String heading, String section) throws IOException {
    if (Files.exists(file) && !Files.isRegularFile(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      // the section is written to a temporary file renamed over this one: never over a device such
      // as /dev/null (that once replaced the machine's /dev/null with a plain file)
      throw new IllegalArgumentException("not a regular file, so not written: " + file);
    }
    String text = Files.exists(file) ? Files.readString(file)
        : "# Benchmarks\n\nMeasured figures, each with its machine, its command and the date"
            + " (TESTING.md → Benchmarks; `bench/README.md` says how to run each).\n";
    List<String> lines = new ArrayList<>(text.lines().toList());
    int start = -1;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals(heading)) {
        start = i;
        break;
      }
    }
    String body = section.endsWith("\n") ? section : section + "\n";
    StringBuilder out = new StringBuilder();
    if (start < 0) {
      out.append(text.endsWith("\n") ? text : text + "\n").append("\n").append(body);
    } else {
      int end = lines.size();
      for (int i = start + 1; i < lines.size(); i++) {
        if (lines.get(i).startsWith("## ")) {
          end = i;
          break;
        }
      }
      for (int i = 0; i < start; i++) {
        out.append(lines.get(i)).append("\n");
      }
      out.append(body);
      if (end < lines.size()) {
        out.append("\n");
        for (int i = end; i < lines.size(); i++) {
          out.append(lines.get(i)).append("\n");
        }
      }
    }
    Path tmp = file.resolveSibling(file.getFileName() + ".pipeline.tmp");
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(tmp, out.toString(), StandardCharsets.UTF_8);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  /** Options in the order given, from pairs of name and value: a benchmark's defaults. */
  static Map<String, String> options(String... namesAndValues) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      options.put(namesAndValues[i], namesAndValues[i + 1]);
    }
    return options;
  }

  /**
   * A benchmark's options and their defaults, in the order given, from lines {@code name=value}
   * (an empty value allowed); blank lines and lines starting with {@code #} are comments.
   */
  static Map<String, String> defaults(String lines) {
    Map<String, String> d = new LinkedHashMap<>();
    for (String line : lines.split("\n")) {
      String l = line.strip();
      if (!l.isEmpty() && !l.startsWith("#")) {
        int eq = l.indexOf('=');
        d.put(l.substring(0, eq), l.substring(eq + 1));
      }
    }
    return d;
  }

  static Map<String, String> parseOptions(String[] args, Map<String, String> defaults) {
    Map<String, String> given = new HashMap<>(defaults);
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new IllegalArgumentException("expected --name=value, got " + arg);
      }
      String name = arg.substring(2, arg.indexOf('='));
      if (!defaults.containsKey(name)) {
        throw new IllegalArgumentException("unknown option --" + name + " (known: " + defaults.keySet() + ")");
      }
      given.put(name, arg.substring(arg.indexOf('=') + 1));
    }
    return given;
  }
}
