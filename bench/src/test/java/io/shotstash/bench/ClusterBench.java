package io.shotstash.bench;

import io.shotstash.db.Database;
import io.shotstash.testing.ClusterNodes;
import io.shotstash.testing.ClusterNodes.Node;
import io.shotstash.testing.HttpWorker;
import io.shotstash.testing.VoteStream;
import io.shotstash.testing.VoteStream.Attempt;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The cluster's figures (issue #7), in one run on this machine:
 *
 * <ul>
 *   <li><b>Job cycles</b> (claim, upload a small output, complete: three HTTP calls) drained by N HTTP
 *       workers, each from its own loopback address: one node started with plain {@code serve}, one
 *       node with {@code serve --cluster} (the rate limits then count in Hazelcast), and three nodes
 *       with the workers spread over them. Every node is its own JVM on the same cores.</li>
 *   <li><b>Failover</b> of the git writer on three nodes, while staff vote through every node: after
 *       {@code kill -9} of the writer's node and after freezing it ({@code SIGSTOP}, thawed 10 s later);
 *       the time until another node reports itself as the writer ({@code /api/v1/status}) and until the
 *       first vote sent after the event is accepted.</li>
 * </ul>
 *
 * <p>Options ({@code --name=value}): {@code jobs=2000 warmup=300 workers=16 rounds=3 out=docs/benchmarks.md}
 * ({@code out=-} prints only), {@code command=<text for the report>}. Run by {@code bench/cluster.sh}.
 */
final class ClusterBench {
  static final String SECTION = "## Cluster: failover and job cycles";
  private static final List<String> MEMBERS = List.of("member-a", "member-b", "member-c");
  private static final List<String> JVM = List.of("-Xmx256m", "-XX:+UseSerialGC");

  private final Vertx vertx = Vertx.vertx();
  private final Map<String, String> options;
  private final int jobs;
  private final int warmup;
  private final int workers;
  private final int rounds;

  private ClusterBench(Map<String, String> options) {
    this.options = options;
    this.jobs = Integer.parseInt(options.getOrDefault("jobs", "2000"));
    this.warmup = Integer.parseInt(options.getOrDefault("warmup", "300"));
    this.workers = Integer.parseInt(options.getOrDefault("workers", "16"));
    this.rounds = Integer.parseInt(options.getOrDefault("rounds", "3"));
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (String a : args) {
      if (!a.startsWith("--") || !a.contains("=")) {
        throw new IllegalArgumentException("options are --name=value, got " + a);
      }
      options.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
    }
    ClusterBench bench = new ClusterBench(options);
    try {
      bench.run();
    } finally {
      bench.vertx.close().await();
    }
    System.exit(0);
  }

  /** The rate of one drain configuration. */
  record Drain(String label, int nodes, double jobsPerSecond, double seconds) {}

  /** One failover: ms until another node reported the writer, ms until the first accepted vote sent after the event. */
  record Failover(long movedMs, long firstWriteMs, String attempts) {}

  private void run() throws Exception {
    String loadBefore = loadAverage();
    List<Drain> drains = new ArrayList<>();
    drains.add(drain("one node, `serve`", 1, false));
    drains.add(drain("one node, `serve --cluster`", 1, true));
    List<Failover> kills = new ArrayList<>();
    List<Failover> freezes = new ArrayList<>();
    try (ClusterNodes cluster = ClusterNodes.create(vertx, ClusterNodes.jar(), 3, Map.of(), JVM)) {
      String admin = cluster.startFirst(Duration.ofSeconds(90));
      cluster.startMore(List.of(cluster.node(1), cluster.node(2)), admin, Duration.ofSeconds(120));
      drains.add(drainOn(cluster, admin, "three nodes, `serve --cluster`, workers spread over them"));
      List<String> staff = staff(cluster, admin, 6 * rounds);
      for (int r = 0; r < rounds; r++) {
        kills.add(failover(cluster, admin, staff.subList(6 * r, 6 * r + 3), false));
        freezes.add(failover(cluster, admin, staff.subList(6 * r + 3, 6 * r + 6), true));
      }
    }
    String section = report(drains, kills, freezes, loadBefore, loadAverage());
    String out = options.getOrDefault("out", "docs/benchmarks.md");
    System.out.println(section);
    if (!out.equals("-")) {
      BenchSupport.replaceSection(Path.of(out), SECTION, section);
      System.out.println("Wrote the section '" + SECTION + "' of " + out);
    }
  }

  // ---- job cycles ----

  private Drain drain(String label, int nodes, boolean clustered) throws Exception {
    try (ClusterNodes cluster = ClusterNodes.create(vertx, ClusterNodes.jar(), nodes, Map.of(), JVM, clustered)) {
      String admin = cluster.startFirst(Duration.ofSeconds(90));
      return drainOn(cluster, admin, label);
    }
  }

  private Drain drainOn(ClusterNodes cluster, String admin, String label) throws Exception {
    int n = cluster.nodes().size();
    List<HttpWorker> ws = new ArrayList<>();
    for (int i = 0; i < workers; i++) {
      ws.add(HttpWorker.register(vertx, cluster.node(i % n), "127.0.1." + (10 + i), String.format("bench-%02d", i),
          "bench/cycle"));
    }
    run(cluster, ws, warmup, "warm-");
    double seconds = run(cluster, ws, jobs, "bench-");
    Drain d = new Drain(label, n, jobs / seconds, seconds);
    System.out.printf(Locale.ROOT, "%s: %d jobs in %.1f s = %.0f jobs/s%n", label, jobs, seconds, d.jobsPerSecond());
    return d;
  }

  /** Queues {@code count} jobs and lets the workers drain them; the seconds it took. */
  private double run(ClusterNodes cluster, List<HttpWorker> ws, int count, String prefix) throws SQLException {
    cluster.db().execute("INSERT INTO media_files (id, name, mime_type, size, storage_key) SELECT gen_random_uuid(), '"
        + prefix + "' || g || '.txt', 'text/plain', 5, 'originals/" + prefix + "' || g FROM generate_series(1, " + count
        + ") g");
    cluster.db().execute("INSERT INTO pipeline_jobs (id, file_id, kind) SELECT gen_random_uuid(), id, 'bench/cycle' "
        + "FROM media_files WHERE name LIKE '" + prefix + "%'");
    Map<String, Boolean> claimed = new ConcurrentHashMap<>();
    AtomicInteger completed = new AtomicInteger();
    long start = System.nanoTime();
    long deadline = start + TimeUnit.MINUTES.toNanos(5);
    List<Future<Void>> loops = new ArrayList<>();
    for (int i = 0; i < ws.size(); i++) {
      loops.add(ws.get(i).drain(cluster.node(i % cluster.nodes().size()), deadline,
          job -> {
            if (claimed.putIfAbsent(job, true) != null) {
              throw new IllegalStateException("job " + job + " claimed twice");
            }
          }, completed, count));
    }
    Future.all(loops).await();
    double seconds = (System.nanoTime() - start) / 1e9;
    long done = number(cluster, "SELECT count(*) FROM pipeline_jobs p JOIN media_files f ON f.id = p.file_id "
        + "WHERE f.name LIKE '" + prefix + "%' AND p.status = 'done'");
    if (done != count) {
      throw new IllegalStateException(done + " of " + count + " jobs done");
    }
    return seconds;
  }

  // ---- failover ----

  private List<String> staff(ClusterNodes cluster, String admin, int count) {
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < MEMBERS.size(); i++) {
      person(cluster.node(i % 3), admin, MEMBERS.get(i), "user");
    }
    for (int i = 0; i < count; i++) {
      person(cluster.node(i % 3), admin, String.format("staff-%02d", i), "staff");
    }
    String head = head(cluster);
    cluster.eventually("replicas at the head", Duration.ofSeconds(60),
        () -> cluster.nodes().stream().allMatch(n -> head.equals(n.replicaCommit())));
    for (int i = 0; i < count; i++) {
      tokens.add(cluster.login(cluster.node(i % 3), String.format("staff-%02d", i), "staff password 123"));
    }
    return tokens;
  }

  private static void person(Node node, String admin, String slug, String level) {
    HttpResponse<Buffer> r = node.http.post("/api/people").bearerTokenAuthentication(admin)
        .sendJsonObject(new JsonObject().put("slug", slug).put("fullName", "Person " + slug)
            .put("email", slug + "@example.org").put("password", "staff password 123").put("accountLevel", level))
        .await();
    if (r.statusCode() != 201) {
      throw new IllegalStateException("create " + slug + ": " + r.bodyAsString());
    }
  }

  private static String head(ClusterNodes cluster) {
    try (var repo = cluster.openRepository()) {
      return repo.exactRef("refs/heads/published").getObjectId().name();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One kill -9 (or freeze of 10 s) of the writer's node during votes through every node; then it comes back. */
  private Failover failover(ClusterNodes cluster, String admin, List<String> staff, boolean freeze) {
    Node writer = cluster.byName(cluster.awaitOneCluster(admin, Duration.ofSeconds(120)));
    Node survivor = cluster.nodes().stream().filter(n -> n != writer).findFirst().orElseThrow();
    List<Future<List<Attempt>>> running = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      running
          .add(new VoteStream(vertx, cluster.node(i), staff.get(i), MEMBERS, 700, 1_000, Duration.ofSeconds(18)).run());
    }
    cluster.pause(3_000);
    long at = System.nanoTime();
    if (freeze) {
      writer.freeze();
    } else {
      writer.kill();
    }
    cluster.eventually("another writer", Duration.ofSeconds(90), () -> {
      JsonObject status = survivor.status(admin);
      String w = status == null ? null : status.getString("writerNode");
      return w != null && !w.equals(writer.name());
    });
    long moved = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - at);
    if (freeze) {
      cluster.pause(Math.max(0, 10_000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - at)));
      writer.thaw();
    }
    List<Attempt> attempts = VoteStream.collect(running);
    long first = attempts.stream().filter(a -> a.accepted() && a.startNanos() > at)
        .mapToLong(a -> TimeUnit.NANOSECONDS.toMillis(a.endNanos() - at)).min().orElse(-1);
    Map<String, Integer> outcomes = new LinkedHashMap<>();
    attempts
        .forEach(a -> outcomes.merge(a.accepted() ? "200" : a.status() + (a.code() == null ? "" : " " + a.code()), 1,
            Integer::sum));
    if (!freeze) {
      writer.start();
    }
    cluster.awaitOneCluster(admin, Duration.ofSeconds(120));
    Failover f = new Failover(moved, first, outcomes.toString());
    System.out.printf(Locale.ROOT, "%s: writer moved after %d ms, first accepted vote %d ms after; %s%n",
        freeze ? "freeze" : "kill -9", moved, first, f.attempts());
    return f;
  }

  // ---- the report ----

  private String report(List<Drain> drains, List<Failover> kills, List<Failover> freezes, String loadBefore,
      String loadAfter) throws Exception {
    StringBuilder md = new StringBuilder(SECTION).append("\n\n");
    md.append(String.format(Locale.ROOT, "Measured %s with `%s` (`ClusterBench`, see `bench/README.md`). %s. Load"
        + " average (1, 5, 15 min) %s at the start and %s at the end: other work on the machine shares the cores,"
        + " so compare the rows of one run, not runs.%n%n",
        LocalDate.now(), options.getOrDefault("command", "bench/cluster.sh"), machine(), loadBefore, loadAfter));
    md.append(String.format(Locale.ROOT, "### Job cycles: %,d jobs, %d HTTP workers%n%n", jobs, workers));
    md.append("Each cycle is three calls (`jobs/next`, `PUT output` of a few bytes, `complete`); every node is its own "
        + "JVM (`-Xmx256m`, serial GC, one HTTP verticle) on the same two cores as PostgreSQL and the workers' JVM. "
        + String.format(Locale.ROOT, "Each configuration drained %d jobs first to warm up.%n%n", warmup));
    md.append(
        "| configuration | nodes | jobs/s | seconds | vs one node, `serve` |\n| --- | ---: | ---: | ---: | ---: |\n");
    double base = drains.get(0).jobsPerSecond();
    for (Drain d : drains) {
      md.append(
          String.format(Locale.ROOT, "| %s | %d | %.0f | %.1f | %.2f × |%n", d.label(), d.nodes(), d.jobsPerSecond(),
              d.seconds(), d.jobsPerSecond() / base));
    }
    md.append("\nOn two cores three nodes do not add capacity (they add JVMs competing for the same cores, and a"
        + " Hazelcast round trip for each rate-limit check); the point is that the cluster keeps draining without"
        + " double claims at a comparable rate.\n\n");
    md.append("### Failover of the git writer (three nodes)\n\n");
    md.append("Heartbeat every 1 s, a node is dropped after 5 s without one (`conf/cluster.xml`). Staff vote through"
        + " all three nodes, one vote every 0.7 s per node; at the event the writer's node is killed (`kill -9`) or"
        + " frozen (`SIGSTOP`, thawed 10 s later). *Writer moved*: until a surviving node's `/api/v1/status` names"
        + " another `writerNode`. *First write*: until the first vote sent after the event was accepted.\n\n");
    md.append("| event | round | writer moved (ms) | first write (ms) | answers during the round |\n"
        + "| --- | ---: | ---: | ---: | --- |\n");
    for (int i = 0; i < kills.size(); i++) {
      Failover f = kills.get(i);
      md.append(String.format(Locale.ROOT, "| kill -9 | %d | %d | %d | %s |%n", i + 1, f.movedMs(), f.firstWriteMs(),
          f.attempts()));
    }
    for (int i = 0; i < freezes.size(); i++) {
      Failover f = freezes.get(i);
      md.append(String.format(Locale.ROOT, "| freeze | %d | %d | %d | %s |%n", i + 1, f.movedMs(), f.firstWriteMs(),
          f.attempts()));
    }
    md.append("\n`-1` is a vote sent to the node while it was dead (connection refused). `503 writer_lost` ends a vote"
        + " that was waiting on the writer when its node left; `503 writer_unavailable` / `write_conflict` are the"
        + " retryable refusals of a takeover; none of these is in git twice (the integration test `ClusterIT` checks"
        + " every vote's marker against the history).\n");
    return md.toString();
  }

  private String machine() throws Exception {
    String memory = Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
        .map(l -> l.replaceAll("\\D+", "")).findFirst().map(kb -> Long.parseLong(kb) / 1024 / 1024 + " GiB")
        .orElse("?");
    String pg;
    try (var db = io.shotstash.testing.TestDatabase.create();
        Connection c = Database.connect(db.url());
        Statement s = c.createStatement()) {
      pg = "PostgreSQL " + value(s, "SHOW server_version") + " (fsync " + value(s, "SHOW fsync")
          + ", synchronous_commit "
          + value(s, "SHOW synchronous_commit") + ")";
    }
    return String.format(Locale.ROOT, "%d cores, %s memory, %s, Java %s", Runtime.getRuntime().availableProcessors(),
        memory, pg, System.getProperty("java.version"));
  }

  private static String loadAverage() throws IOException {
    String[] parts = Files.readString(Path.of("/proc/loadavg")).split(" ");
    return parts[0] + " " + parts[1] + " " + parts[2];
  }

  private static String value(Statement s, String query) throws SQLException {
    try (ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static long number(ClusterNodes cluster, String query) throws SQLException {
    try (Connection c = Database.connect(cluster.db().url()); Statement s = c.createStatement()) {
      return Long.parseLong(value(s, query));
    }
  }
}
