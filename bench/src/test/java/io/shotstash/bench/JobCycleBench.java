package io.shotstash.bench;

import io.shotstash.bench.BenchSupport.AppProcess;
import io.shotstash.bus.Requests;
import io.shotstash.db.Database;
import io.shotstash.media.LocalStorage;
import io.shotstash.media.Storage;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.pipeline.contract.OutputRules;
import io.shotstash.testing.TestApp;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToDoubleFunction;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The full job cycle (claim, read the input, upload the output, complete; tiny bodies) with N
 * workers, four ways in one run, for each N:
 *
 * <ol>
 *   <li><b>HTTP</b>: the real app as its own process; workers registered over HTTP, each calling from
 *       its own loopback address (127.1.x.y) so the per-IP limit (6,000 calls/min) never applies.
 *       The per-worker limit (600 calls/min, i.e. 150 cycles) is the contract's and stays: every
 *       worker stops after {@value #BUDGET} cycles (4 calls each), and the next round is done by N
 *       freshly registered workers. The rate is jobs / (sum of the rounds' times).</li>
 *   <li><b>event bus</b>: the same app inside this JVM ({@link TestApp}), N in-process workers sending
 *       the same QueueActions (NEXT naming the input's storage key, reading the file, writing the output (a tiny one needs no
 *       BEGIN_OUTPUT first: OutputRules.claimCheckedFirst),
 *       RECORD_OUTPUT, COMPLETE) with {@link Requests#ask}: no HTTP and so no rate limit.</li>
 *   <li><b>graphile-worker</b> (Node) draining the same number of no-op jobs with concurrency N, with its
 *       defaults (one get_job and one complete_job per job), and as context in its batched mode
 *       ({@code localQueue} and {@code completeJobBatchDelay}: {@code graphile-drain.js}'s mode argument).</li>
 *   <li><b>pgbench</b> running the cycle's statements as they were before batching ({@link UnbatchedSql}), with N clients.</li>
 * </ol>
 */
final class JobCycleBench {
  static final String SECTION = "## Pipeline: full job cycle";
  static final String KIND = "bench/noop";
  /** Cycles per worker per minute within the contract's 600 calls: 4 calls each, and one poll to spare. */
  static final int BUDGET = 149;
  /** Untimed jobs drained first, a round at a time: three rounds of 8 HTTP workers (graphile-worker drains as many). */
  static final int WARMUP_WORKERS = 8;
  static final int WARMUP = 3 * WARMUP_WORKERS * BUDGET;

  record HttpResult(int jobs, int rounds, double seconds, int maxCallsOfAWorker, Map<String, Double> cpu) {
    double rate() {
      return jobs / seconds;
    }
  }

  record Result(int jobs, double seconds, Map<String, Double> cpu) {
    double rate() {
      return jobs / seconds;
    }
  }

  record Pgbench(double tps, int queued, String line, Map<String, Double> cpu, double claimMs, String claimPlan) {}

  /** {@code mode} is graphile-drain.js's mode argument; {@code lagMs} the wait from the last job:complete to an empty table. */
  record Graphile(double rate, int jobs, double seconds, int maxPoolSize, String version, String mode,
      int localQueueSize,
      int completeJobBatchDelay, double lagMs, Map<String, Double> cpu) {}

  /** The ways measured once, one after the other, for one worker count. */
  record Rep(HttpResult http, Result bus, Graphile graphile, Graphile graphileBatched, Pgbench pgbench) {}

  /**
   * Every repetition of one worker count. Rates and CPU come from the repetition with the median
   * HTTP rate; each ratio is the median of the ratios within each repetition (its four figures
   * ran seconds apart, so a slower phase of the shared machine moves both sides of a ratio).
   */
  record Row(int workers, List<Rep> reps) {
    private Rep medianBy(ToDoubleFunction<Rep> f) {
      List<Rep> sorted = new ArrayList<>(reps);
      sorted.sort(Comparator.comparingDouble(f));
      return sorted.get((sorted.size() - 1) / 2);
    }

    HttpResult http() {
      return medianBy(r -> r.http().rate()).http();
    }

    Result bus() {
      return medianBy(r -> r.bus().rate()).bus();
    }

    Graphile graphile() {
      return medianBy(r -> r.graphile().rate()).graphile();
    }

    Graphile graphileBatched() {
      return medianBy(r -> r.graphileBatched().rate()).graphileBatched();
    }

    Pgbench pgbench() {
      return medianBy(r -> r.pgbench().tps()).pgbench();
    }

    /** The median of a ratio taken within each repetition. */
    double ratio(ToDoubleFunction<Rep> f) {
      return BenchSupport.medianOf(reps.stream().map(f::applyAsDouble).toList());
    }

    /** The ratio in each repetition, in order: "0.45, 0.47, 0.48". */
    String each(ToDoubleFunction<Rep> f) {
      return String.join(", ", reps.stream().map(r -> String.format(Locale.ROOT, "%.2f", f.applyAsDouble(r))).toList());
    }

    double httpOverGraphile() {
      return ratio(r -> r.http().rate() / r.graphile().rate());
    }

    double busOverGraphile() {
      return ratio(r -> r.bus().rate() / r.graphile().rate());
    }

    double httpOverGraphileBatched() {
      return ratio(r -> r.http().rate() / r.graphileBatched().rate());
    }

    double busOverGraphileBatched() {
      return ratio(r -> r.bus().rate() / r.graphileBatched().rate());
    }

    double httpOverPgbench() {
      return ratio(r -> r.http().rate() / r.pgbench().tps());
    }

    double busOverPgbench() {
      return ratio(r -> r.bus().rate() / r.pgbench().tps());
    }
  }

  private final Vertx clientVertx;
  private final AppProcess app;
  private final TestApp inProcess;
  private final Path work;
  private final Path nodeDir;
  private final int jobs;
  private final double noisy;
  private final int retryUntilSeconds;
  private final int warmupSeconds;
  /** What each way drained untimed before the first figure. */
  private Warmup httpWarmup = new Warmup(0, 0);
  private Warmup busWarmup = new Warmup(0, 0);
  private int retries;
  private final List<String> httpSources = new ArrayList<>();
  private final List<String> busSources = new ArrayList<>();
  private String probe = "";
  /** graphile-drain.js's mode for the batched column, e.g. "batched" or "batched:500:0". */
  private String graphileBatchedMode = "batched";

  JobCycleBench(Vertx clientVertx, AppProcess app, TestApp inProcess, Path work, Path nodeDir, int jobs, double noisy,
      int retryUntilSeconds, int warmupSeconds) {
    this.clientVertx = clientVertx;
    this.app = app;
    this.inProcess = inProcess;
    this.work = work;
    this.nodeDir = nodeDir;
    this.jobs = jobs;
    this.noisy = noisy;
    this.retryUntilSeconds = retryUntilSeconds;
    this.warmupSeconds = warmupSeconds;
  }

  /** {@code graphileBatched}: the mode graphile-drain.js runs for the "graphile-batched" way. */
  List<Row> run(List<Integer> workerCounts, List<String> modes, int reps, String graphileBatched) throws Exception {
    graphileBatchedMode = graphileBatched;
    ready(modes);
    List<Row> rows = new ArrayList<>();
    try (PgbenchDb pg = new PgbenchDb(workerCounts.stream().mapToInt(i -> i).max().orElse(16))) {
      for (int n : workerCounts) {
        List<Rep> done = new ArrayList<>();
        for (int rep = 1; rep <= reps; rep++) {
          BenchSupport.log("--- %d workers, repetition %d of %d ---", n, rep, reps);
          done.add(measure(n, modes, pg));
        }
        rows.add(new Row(n, done));
      }
    }
    return rows;
  }

  /** One repetition: each way once, one after the other. */
  private Rep measure(int n, List<String> modes, PgbenchDb pg) throws Exception {
    Map<String, Double> none = Map.of("busy", Double.NaN, "of", 2.0);
    HttpResult http = new HttpResult(0, 0, Double.NaN, 0, none);
    Result bus = new Result(0, Double.NaN, none);
    Graphile graphile = new Graphile(Double.NaN, 0, Double.NaN, 0, "?", "defaults", -1, -1, Double.NaN, none);
    Graphile batched = new Graphile(Double.NaN, 0, Double.NaN, 0, "?", graphileBatchedMode, 0, 0, Double.NaN, none);
    Pgbench bench = new Pgbench(Double.NaN, 0, "", none, Double.NaN, "?");
    if (modes.contains("http")) {
      http = lessDisturbed("HTTP", this::httpOf, HttpResult::cpu, n);
      BenchSupport.log("HTTP: %,d jobs in %.2f s = %,.0f jobs/s (%d rounds); %s", http.jobs(), http.seconds(),
          http.rate(),
          http.rounds(), CpuMeter.describe(http.cpu()));
    }
    if (modes.contains("bus")) {
      bus = lessDisturbed("event bus", this::bus, Result::cpu, n);
      BenchSupport.log("event bus: %,d jobs in %.2f s = %,.0f jobs/s; %s", bus.jobs(), bus.seconds(), bus.rate(),
          CpuMeter.describe(bus.cpu()));
    }
    if (modes.contains("graphile")) {
      graphile = lessDisturbed("graphile-worker", k -> graphile(k, "defaults"), Graphile::cpu, n);
      BenchSupport.log("graphile-worker %s: %,d jobs in %.2f s = %,.0f jobs/s; %s", graphile.version(), graphile.jobs(),
          graphile.seconds(), graphile.rate(), CpuMeter.describe(graphile.cpu()));
    }
    if (modes.contains("graphile-batched")) {
      batched = lessDisturbed("graphile-worker (batched)", k -> graphile(k, graphileBatchedMode), Graphile::cpu, n);
      BenchSupport.log("graphile-worker %s, %s (localQueue.size %d, completeJobBatchDelay %d ms): %,d jobs in %.2f s"
          + " = %,.0f jobs/s; %s", batched.version(), batched.mode(), batched.localQueueSize(),
          batched.completeJobBatchDelay(), batched.jobs(), batched.seconds(), batched.rate(),
          CpuMeter.describe(batched.cpu()));
    }
    if (modes.contains("pgbench")) {
      bench = lessDisturbed("pgbench", k -> pg.run(k, jobs), Pgbench::cpu, n);
      BenchSupport.log("pgbench: %,.0f cycles/s; %s", bench.tps(), CpuMeter.describe(bench.cpu()));
    }
    return new Rep(http, bus, graphile, batched, bench);
  }

  /**
   * The app is a long-running server: before the first figure it drains jobs for {@code
   * warmupSeconds} (two thirds over HTTP, one third over the bus, in rounds of {@value #WARMUP}),
   * untimed, so the JIT has compiled the cycle's code (a fresh JVM spends tens of seconds of CPU in
   * its compilers first: async-profiler put C2 at a third of the app's CPU 30 s in). graphile-worker,
   * a fresh Node process per figure, drains {@value #WARMUP} first in the same process before its
   * timed jobs ({@code graphile-drain.js}'s warm-up argument).
   */
  private void warmUp(List<String> modes) throws Exception {
    if (modes.contains("http") && httpWarmup.jobs() == 0) {
      httpWarmup = warmUpRounds(() -> http(WARMUP_WORKERS, WARMUP).jobs(), warmupSeconds * 2 / 3);
      BenchSupport.log("HTTP warm-up: %,d jobs in %,d s", httpWarmup.jobs(), httpWarmup.seconds());
    }
    if (modes.contains("bus") && busWarmup.jobs() == 0) {
      busWarmup = warmUpRounds(() -> bus(WARMUP_WORKERS, WARMUP).jobs(), warmupSeconds / 3);
      BenchSupport.log("event-bus warm-up: %,d jobs in %,d s", busWarmup.jobs(), busWarmup.seconds());
    }
  }

  record Warmup(int jobs, int seconds) {}

  /**
   * The input files in place and the app warmed up for these ways ({@code http}, {@code bus}), each
   * at most once in a run: the job cycle calls it first, and so does a part run without it
   * ({@link CallLatencyBench}).
   */
  void ready(List<String> modes) throws Exception {
    if (httpSources.isEmpty()) {
      prepareSources();
    }
    warmUp(modes);
  }

  /** What the app drained untimed for its JIT before the first figure: {HTTP, event bus}. */
  Warmup[] warmups() {
    return new Warmup[]{httpWarmup, busWarmup};
  }

  List<String> httpSources() {
    return httpSources;
  }

  List<String> busSources() {
    return busSources;
  }

  /** Drains rounds of {@value #WARMUP} jobs ({@code round} answers how many it drained), at least one, for {@code seconds}. */
  private static Warmup warmUpRounds(Callable<Integer> round, int seconds) throws Exception {
    long start = System.nanoTime();
    int jobs = 0;
    do {
      jobs += round.call();
    } while (System.nanoTime() - start < seconds * 1_000_000_000L);
    return new Warmup(jobs, (int) Math.round((System.nanoTime() - start) / 1e9));
  }

  interface Measure<T> {
    T run(int workers) throws Exception;
  }

  /**
   * Runs a measurement; when other processes used more than {@code noisy} cores meanwhile (someone
   * else's build) and the run is young enough, runs it once more and keeps the less disturbed one.
   */
  private <T> T lessDisturbed(String what, Measure<T> measure, java.util.function.Function<T, Map<String, Double>> cpu,
      int n)
      throws Exception {
    T first = measure.run(n);
    double other = cpu.apply(first).getOrDefault("other processes", 0.0);
    if (other <= noisy || (System.nanoTime() - PipelineBench.STARTED) / 1e9 > retryUntilSeconds) {
      return first;
    }
    BenchSupport.log("%s: other processes used %.1f cores meanwhile; measuring again", what, other);
    retries++;
    T second = measure.run(n);
    return cpu.apply(second).getOrDefault("other processes", 0.0) < other ? second : first;
  }

  int retries() {
    return retries;
  }

  private HttpResult httpOf(int n) throws Exception {
    return http(n, jobs);
  }

  String probe() {
    return probe;
  }

  // ------------------------------------------------------------------------------------ input files

  /** A handful of tiny originals: uploaded over HTTP to the app process, written into the in-process app's storage. */
  private void prepareSources() throws Exception {
    for (int i = 1; i <= 4; i++) {
      HttpResponse<Buffer> r = app.client.post("/api/v1/files").bearerTokenAuthentication(app.adminToken)
          .addQueryParam("folderId", app.folderId()).putHeader("X-File-Name", "tiny-" + i + ".txt")
          .putHeader("Content-Type", "text/plain")
          .sendBuffer(Buffer.buffer("tiny input " + i + "\n")).await();
      if (r.statusCode() != 201) {
        throw new IllegalStateException("upload failed: " + r.statusCode() + " " + r.bodyAsString());
      }
      httpSources.add(r.bodyAsJsonObject().getJsonObject("data").getString("id"));
    }
    LocalStorage storage = new LocalStorage(inProcess.vertx(), inProcess.dataDir().resolve("media"));
    try (Connection c = Database.connect(inProcess.db().url());
        PreparedStatement ps = c.prepareStatement(
            "INSERT INTO media_files (id, name, mime_type, size, storage_key) VALUES (?::uuid, ?, 'text/plain', ?, ?)")) {
      for (int i = 1; i <= 4; i++) {
        String id = UUID.randomUUID().toString();
        byte[] body = ("tiny input " + i + "\n").getBytes();
        Files.write(storage.path(Storage.originalKey(id)), body);
        ps.setString(1, id);
        ps.setString(2, "tiny-" + i + ".txt");
        ps.setLong(3, body.length);
        ps.setString(4, Storage.originalKey(id));
        ps.executeUpdate();
        busSources.add(id);
      }
    }
  }

  /**
   * Queues {@code count} jobs of {@link #KIND}: one file row each (a file has one open job per
   * kind), all pointing at the handful of stored originals. ANALYZE afterwards, as autovacuum would.
   */
  static void queueJobs(Connection c, List<String> sources, int count) throws SQLException {
    insertJobs(c, sources, count, KIND);
    settle(c);
  }

  /** Inserts {@code count} jobs of {@code kind} as {@link #queueJobs} does, in one statement, and nothing else. */
  static void insertJobs(Connection c, List<String> sources, int count, String kind) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "WITH src AS (SELECT array_agg(storage_key) AS keys, array_agg(size) AS sizes, count(*)::int AS n "
            + "  FROM media_files WHERE id = ANY(?::uuid[])), "
            + "f AS (INSERT INTO media_files (id, name, mime_type, size, storage_key) "
            + "  SELECT gen_random_uuid(), 'bench-' || g || '.txt', 'text/plain', src.sizes[1 + g % src.n], src.keys[1 + g % src.n] "
            + "  FROM src, generate_series(1, ?) g RETURNING id) "
            + "INSERT INTO pipeline_jobs (id, file_id, kind) SELECT gen_random_uuid(), f.id, ? FROM f")) {
      ps.setArray(1, c.createArrayOf("text", sources.toArray()));
      ps.setInt(2, count);
      ps.setString(3, kind);
      ps.executeUpdate();
    }
  }

  /** Before every timed drain, for every way alike: VACUUM ANALYZE what the cycle touches, and a CHECKPOINT. */
  static void settle(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("VACUUM ANALYZE pipeline_jobs, media_files, processed_versions, pipeline_workers");
      s.execute("CHECKPOINT");
    }
  }

  static int count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  // ------------------------------------------------------------------------------------ HTTP

  /**
   * One worker over HTTP from its own loopback address, counting its calls. It runs on its own
   * event-loop context of the benchmark's Vert.x (the loops taken in turn), as a real worker is a
   * process of its own and as pgbench spreads its clients over threads: workers sharing one thread
   * would wait for each other's responses to be read.
   */
  final class HttpWorker {
    final String name;
    final String ip;
    final Context context = clientVertx.getOrCreateContext();
    final WebClient web;
    String token;
    int calls;
    /** Nanoseconds each call of the last cycle that did a job took (jobs/next, input, output, complete). */
    final long[] took = new long[4];

    HttpWorker(String name) {
      this.name = name;
      this.ip = BenchSupport.nextLoopback();
      this.web =
          WebClient.create(clientVertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(app.port)
              .setLocalAddress(ip).setKeepAlive(true), new io.vertx.core.http.PoolOptions().setHttp1MaxSize(1));
    }

    Future<Void> register(String kind) {
      JsonObject manifest =
          new JsonObject().put("name", name).put("version", "1.0.0").put("kinds", new JsonArray().add(kind))
              .put("contract", 1);
      return web.post("/api/v1/pipeline/workers/register")
          .putHeader("X-Worker-Bootstrap-Token", BenchSupport.BOOTSTRAP_TOKEN)
          .sendJsonObject(new JsonObject().put("manifest", manifest)).compose(r -> {
            if (r.statusCode() != 201) {
              return Future.failedFuture("register " + name + ": " + r.statusCode() + " " + r.bodyAsString());
            }
            token = r.bodyAsJsonObject().getString("token");
            return Future.succeededFuture();
          });
    }

    Future<HttpResponse<Buffer>> next() {
      calls++;
      return web.post("/api/v1/pipeline/jobs/next").putHeader("X-Worker-Token", token).send();
    }

    /** One cycle: true when a job was done, false when nothing was queued (204). */
    Future<Boolean> cycle() {
      return timed(took, 0, this::next).compose(r -> {
        if (r.statusCode() == 204) {
          return Future.succeededFuture(false);
        }
        if (r.statusCode() != 200) {
          return Future.failedFuture(name + " jobs/next: " + r.statusCode() + " " + r.bodyAsString());
        }
        JsonObject job = r.bodyAsJsonObject().getJsonObject("job");
        String id = job.getString("id");
        String claim = job.getString("claimToken");
        calls += 3;
        return timed(took, 1,
            () -> web.get(job.getJsonObject("input").getString("url")).putHeader("X-Worker-Token", token)
                .putHeader("X-Claim-Token", claim).send())
            .compose(in -> expect(in, 200, "input"))
            .compose(in -> timed(took, 2, () -> web.put("/api/v1/pipeline/jobs/" + id + "/output")
                .putHeader("X-Worker-Token", token).putHeader("X-Claim-Token", claim)
                .putHeader("Content-Type", "text/plain")
                .putHeader("X-Output-Ext", "txt").sendBuffer(Buffer.buffer("ok " + in.body().length() + "\n"))))
            .compose(out -> expect(out, 200, "output"))
            .compose(out -> timed(took, 3, () -> web.post("/api/v1/pipeline/jobs/" + id + "/complete")
                .putHeader("X-Worker-Token", token).putHeader("X-Claim-Token", claim).send()))
            .compose(done -> expect(done, 200, "complete"))
            .map(done -> true);
      });
    }

    private Future<HttpResponse<Buffer>> expect(HttpResponse<Buffer> r, int status, String call) {
      return r.statusCode() == status ? Future.succeededFuture(r)
          : Future.failedFuture(name + " " + call + ": " + r.statusCode() + " " + r.bodyAsString());
    }

    /** Cycles until the budget is spent or nothing is queued. */
    Future<Void> loop(int left, AtomicInteger done) {
      if (left == 0) {
        return Future.succeededFuture();
      }
      return cycle().compose(did -> {
        if (!did) {
          return Future.succeededFuture();
        }
        done.incrementAndGet();
        return loop(left - 1, done);
      });
    }
  }

  /**
   * Starts {@code call} and, once it succeeded, puts the nanoseconds from its start to its answer in
   * {@code took[i]} (two clock reads per call: nothing the throughput figures would notice).
   */
  static <T> Future<T> timed(long[] took, int i, Supplier<Future<T>> call) {
    long start = System.nanoTime();
    return call.get().map(answer -> {
      took[i] = System.nanoTime() - start;
      return answer;
    });
  }

  /** Runs {@code work} on {@code context} and answers its outcome. */
  static <T> Future<T> on(Context context, Supplier<Future<T>> work) {
    Promise<T> done = Promise.promise();
    context.runOnContext(v -> work.get().onComplete(done));
    return done.future();
  }

  private HttpResult http(int n, int jobs) throws Exception {
    try (Connection c = app.jdbc()) {
      int rounds = (jobs + n * BUDGET - 1) / (n * BUDGET);
      // every round's workers are registered before any timing (registration is not part of the cycle)
      List<List<HttpWorker>> groups = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        List<HttpWorker> group = new ArrayList<>();
        List<Future<Void>> registered = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          HttpWorker w = new HttpWorker("bench-http-" + n + "-" + httpRuns + "-" + r + "-" + i); // a new name: a new worker
          group.add(w);
          registered.add(on(w.context, () -> w.register(KIND)));
        }
        Future.all(registered).await();
        groups.add(group);
      }
      queueJobs(c, httpSources, jobs);
      AtomicInteger done = new AtomicInteger();
      double seconds = 0;
      int maxCalls = 0;
      CpuMeter cpu = CpuMeter.start(app.pid());
      double pauses = 0;
      for (List<HttpWorker> group : groups) {
        long t0 = System.nanoTime();
        Future.all(group.stream().map(w -> on(w.context, () -> w.loop(BUDGET, done))).toList())
            .await(120, TimeUnit.SECONDS);
        seconds += (System.nanoTime() - t0) / 1e9;
        for (HttpWorker w : group) {
          maxCalls = Math.max(maxCalls, w.calls);
        }
      }
      Map<String, Double> load = cpu.stop();
      int finished = count(c, "SELECT count(*) FROM pipeline_jobs WHERE status = 'done' AND kind = '" + KIND + "'");
      httpRuns++;
      httpDone += jobs;
      if (done.get() != jobs || finished != httpDone) {
        throw new IllegalStateException("HTTP: " + done.get() + " cycles, " + finished + " jobs done of " + jobs);
      }
      // the contract's limit is in force: the busiest worker of the last round polls until refused
      HttpWorker last = groups.get(groups.size() - 1).get(0);
      int before = last.calls;
      HttpResponse<Buffer> r;
      do {
        r = last.next().await();
      } while (r.statusCode() == 204 && last.calls < 700);
      probe = String.format(Locale.ROOT,
          "a worker that had made %d calls got %d more 204s, then `%d` with `Retry-After: %s`"
              + " at its %dth call in the minute",
          before, last.calls - before - 1, r.statusCode(), r.getHeader("Retry-After"),
          last.calls);
      for (List<HttpWorker> group : groups) {
        group.forEach(w -> w.web.close());
      }
      BenchSupport.log("HTTP rate-limit probe: %s", probe);
      return new HttpResult(done.get(), rounds, seconds, maxCalls, load);
    }
  }

  // ------------------------------------------------------------------------------------ event bus

  /** One in-process worker: the QueueActions an in-process worker sends, without HTTP. */
  final class BusWorker {
    final String name;
    final Vertx vertx = inProcess.vertx();
    final LocalStorage storage;
    final Path outputFile;
    String workerId;
    /** Nanoseconds each step of the last cycle that did a job took (NEXT, reading the input, writing the output, COMPLETE). */
    final long[] took = new long[4];

    BusWorker(String name, LocalStorage storage, Path outputFile) {
      this.name = name;
      this.storage = storage;
      this.outputFile = outputFile;
    }

    /** As EventBusWorkerClient asks: the queue instance on this worker's event loop. */
    Future<JsonObject> ask(String action, JsonObject body) {
      return Requests.ask(vertx, inProcess.queueLoops().address(), action, body);
    }

    Future<Void> register(String kind) {
      JsonObject manifest =
          new JsonObject().put("name", name).put("version", "1.0.0").put("kinds", new JsonArray().add(kind))
              .put("contract", "1");
      return ask(QueueActions.REGISTER, new JsonObject().put("manifest", manifest))
          .map(r -> {
            workerId = r.getString("workerId");
            return null;
          });
    }

    Future<JsonObject> next(String kind) {
      return ask(QueueActions.NEXT, new JsonObject().put("workerId", workerId).put("kinds", new JsonArray().add(kind))
          .put("withStorageKey", true));
    }

    Future<Boolean> cycle() {
      return cycle(KIND);
    }

    Future<Boolean> cycle(String kind) {
      return timed(took, 0, () -> next(kind)).compose(reply -> {
        JsonObject job = reply.getJsonObject("job");
        if (job == null) {
          return Future.succeededFuture(false);
        }
        JsonObject claim = new JsonObject().put("workerId", workerId).put("jobId", job.getString("id"))
            .put("claimToken", job.getString("claimToken"));
        String versionId = UUID.randomUUID().toString();
        String key = Storage.versionKey(versionId, "txt");
        // as EventBusWorkerClient.downloadInput: the claim named the input's key, so no INPUT is asked
        String inputKey = reply.getString("storageKey");
        return timed(took, 1, () -> vertx.fileSystem().readFile(storage.path(inputKey).toString()))
            // as EventBusWorkerClient.uploadOutput: a small output is written before its claim is checked,
            // and its complete records it (one statement); a large one is checked first and recorded at once
            .compose(input -> vertx.fileSystem().props(outputFile.toString()))
            .compose(props -> {
              boolean small = !OutputRules.claimCheckedFirst(props.size(), false);
              return (small ? Future.succeededFuture() : ask(QueueActions.BEGIN_OUTPUT, claim))
                  .compose(ok -> vertx.fileSystem().open(outputFile.toString(),
                      new OpenOptions().setRead(true).setWrite(false)))
                  .compose(in -> timed(took, 2, () -> {
                    in.pause();
                    return storage.write(key, in, 1 << 20, props.size()).eventually(() -> in.close().otherwiseEmpty());
                  }))
                  .compose(written -> {
                    JsonObject output = new JsonObject().put("versionId", versionId).put("storageKey", key)
                        .put("mimeType", "text/plain").put("ext", "txt").put("size", written.size());
                    return small ? timed(took, 3, () -> ask(QueueActions.COMPLETE, claim.copy().mergeIn(output)))
                        : ask(QueueActions.RECORD_OUTPUT, claim.copy().mergeIn(output))
                            .compose(recorded -> timed(took, 3, () -> ask(QueueActions.COMPLETE, claim)));
                  });
            })
            .map(completed -> true);
      });
    }

    Future<Void> loop(AtomicInteger done) {
      return cycle().compose(did -> {
        if (!did) {
          return Future.succeededFuture();
        }
        done.incrementAndGet();
        return loop(done);
      });
    }
  }

  private Result bus(int n) throws Exception {
    return bus(n, jobs);
  }

  private Result bus(int n, int jobs) throws Exception {
    LocalStorage storage = new LocalStorage(inProcess.vertx(), inProcess.dataDir().resolve("media"));
    Path output = Files.writeString(work.resolve("tiny-output.txt"), "ok\n");
    List<BusWorker> workers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      BusWorker w = new BusWorker("bench-bus-" + n + "-" + busRuns + "-" + i, storage, output);
      w.register(KIND).await();
      workers.add(w);
    }
    try (Connection c = Database.connect(inProcess.db().url())) {
      queueJobs(c, busSources, jobs);
      AtomicInteger done = new AtomicInteger();
      CpuMeter cpu = CpuMeter.start(0);
      long t0 = System.nanoTime();
      List<Future<Void>> loops = new ArrayList<>();
      for (BusWorker w : workers) {
        Promise<Void> p = Promise.promise();
        Context ctx = inProcess.vertx().getOrCreateContext();
        ctx.runOnContext(v -> w.loop(done).onComplete(p));
        loops.add(p.future());
      }
      Future.all(loops).await(120, TimeUnit.SECONDS);
      double seconds = (System.nanoTime() - t0) / 1e9;
      Map<String, Double> load = cpu.stop();
      int finished = count(c, "SELECT count(*) FROM pipeline_jobs WHERE status = 'done' AND kind = '" + KIND + "'");
      busRuns++;
      busDone += jobs;
      if (finished != busDone) {
        throw new IllegalStateException("event bus: " + finished + " jobs done, expected " + busDone);
      }
      return new Result(done.get(), seconds, load);
    }
  }

  private int busRuns;
  private int httpRuns;
  private int busDone;
  private int httpDone;

  // ------------------------------------------------------------------------------------ graphile-worker

  /** graphile-worker draining {@link #jobs} no-op jobs with concurrency {@code n}; {@code mode}: graphile-drain.js's. */
  private Graphile graphile(int n, String mode) throws Exception {
    try (TestDatabase db = TestDatabase.create()) {
      try (Connection c = Database.connect(db.url()); Statement s = c.createStatement()) {
        s.execute("CHECKPOINT");
      }
      String url =
          "postgresql://" + db.url().user() + "@" + db.url().host() + ":" + db.url().port() + "/" + db.url().database();
      CpuMeter cpu = CpuMeter.start(0);
      BenchSupport.Output o =
          BenchSupport.run(Duration.ofSeconds(180), Map.of(), nodeDir, "node", "graphile-drain.js", url,
              Integer.toString(jobs), Integer.toString(n), Integer.toString(WARMUP), mode);
      Map<String, Double> load = cpu.stop();
      if (o.exit() != 0) {
        throw new IllegalStateException("graphile-worker failed: " + o.all());
      }
      String last = o.stdout().strip().lines().reduce((a, b) -> b).orElse("{}");
      JsonObject j = new JsonObject(last);
      if (j.getInteger("failed", 0) != 0) {
        throw new IllegalStateException("graphile-worker: failed jobs " + last);
      }
      return new Graphile(j.getDouble("rate"), j.getInteger("jobs"), j.getDouble("seconds"),
          j.getInteger("maxPoolSize"),
          j.getString("version"), j.getString("mode"), j.getInteger("localQueueSize"),
          j.getInteger("completeJobBatchDelay"),
          j.getDouble("lagMs"), load);
    }
  }

  // ------------------------------------------------------------------------------------ pgbench

  /** Replaces $1..$n with pgbench variables or SQL fragments. */
  static String bind(String sql, String... params) {
    Matcher m = Pattern.compile("\\$(\\d+)").matcher(sql);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      int i = Integer.parseInt(m.group(1));
      if (i > params.length) {
        throw new IllegalStateException("statement has a $" + i + " that the pgbench script does not bind: " + sql);
      }
      m.appendReplacement(b, Matcher.quoteReplacement(params[i - 1]));
    }
    m.appendTail(b);
    return b.toString();
  }

  /**
   * The cycle's statements, as the app runs them per job, for pgbench. The app sends the claim on a
   * pool whose sessions commit asynchronously; pgbench has one session per client, so it switches
   * {@code synchronous_commit} around it (two statements the app does not send, a few microseconds
   * each). A tiny output is recorded without a lease move first (OutputRules.claimCheckedFirst), so
   * TOUCH_LEASE is not in the cycle.
   */
  static String pgbenchScript() {
    String worker = "('00000000-0000-4000-8000-' || lpad(:client_id::text, 12, '0'))::uuid";
    String token = "sha256(('claim-' || :client_id)::bytea)";
    String output = "'versions/00000000-0000-7000-8000-000000000000.txt'";
    return String.join("\n",
        "SET synchronous_commit = off;",
        "-- jobs/next: the claim (it also records that the worker was seen)",
        bind(UnbatchedSql.CLAIM, ":kinds", worker, token),
        "\\gset",
        "-- input: the holder check and the file",
        bind(UnbatchedSql.INPUT, ":id", worker, token) + ";",
        "SET synchronous_commit = on;",
        "-- output: a tiny one is recorded (durably) once it is in; that checks the claim and moves the lease",
        bind(UnbatchedSql.RECORD_OUTPUT, ":id", worker, token, "gen_random_uuid()", output, "'text/plain'", "'txt'",
            "3") + ";",
        "-- complete: one call",
        bind(UnbatchedSql.COMPLETE, ":id", worker, token) + ";",
        "");
  }

  /** The pgbench database: the app's schema (Flyway), workers 0..max-1, and a deep queue topped up before each run. */
  final class PgbenchDb implements AutoCloseable {
    final TestDatabase db = TestDatabase.create();
    final Path script = work.resolve("job-cycle.pgbench.sql");

    PgbenchDb(int maxClients) throws Exception {
      db.migrate();
      Files.writeString(script, pgbenchScript());
      try (Connection c = Database.connect(db.url()); Statement s = c.createStatement()) {
        s.execute("INSERT INTO pipeline_kinds (name) VALUES ('" + KIND + "')");
        s.execute("INSERT INTO pipeline_workers (id, name, token_hash, version, kinds, contract) "
            + "SELECT ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, 'pgbench-' || g, "
            + "sha256(('worker-' || g)::bytea), '1.0.0', ARRAY['" + KIND + "'], '1' FROM generate_series(0, "
            + maxClients + ") g");
        s.execute("INSERT INTO media_files (id, name, mime_type, size, storage_key) VALUES "
            + "('00000000-0000-7000-8000-000000000001', 'tiny.txt', 'text/plain', 12, "
            + "'originals/00000000-0000-7000-8000-000000000001')");
      }
    }

    /**
     * Drains the same number of jobs as the other ways ({@code -t jobs/clients} per client) from a
     * queue of that depth: the claim's cost depends on how many jobs are queued, so a deeper queue
     * would not be the same work.
     */
    Pgbench run(int clients, int jobs) throws Exception {
      int perClient = (jobs + clients - 1) / clients;
      int queued;
      try (Connection c = Database.connect(db.url())) {
        int want = perClient * clients + clients; // a few to spare: the last claims never find the queue empty
        int have = count(c, "SELECT count(*) FROM pipeline_jobs WHERE status = 'queued'");
        if (have < want) {
          queueJobs(c, List.of("00000000-0000-7000-8000-000000000001"), want - have);
        }
        queued = count(c, "SELECT count(*) FROM pipeline_jobs WHERE status = 'queued'");
      }
      String[] plan = explainClaim();
      CpuMeter cpu = CpuMeter.start(0);
      BenchSupport.Output o =
          BenchSupport.run(Duration.ofSeconds(180), Map.of(), null, "pgbench", "-n", "-M", "prepared",
              "-h", db.url().host(), "-p", Integer.toString(db.url().port()), "-U", db.url().user(),
              "-c", Integer.toString(clients), "-j",
              Integer.toString(Math.min(clients, Runtime.getRuntime().availableProcessors())),
              "-t", Integer.toString(perClient), "-D", "kinds={" + KIND + "}", "-f", script.toString(),
              db.url().database());
      Map<String, Double> load = cpu.stop();
      String tpsLine = o.stdout().lines().filter(l -> l.startsWith("tps = ")).findFirst().orElse(null);
      if (o.exit() != 0 || tpsLine == null || o.all().contains("aborted")) {
        throw new IllegalStateException("pgbench failed (exit " + o.exit() + "):\n" + o.all());
      }
      double tps = Double.parseDouble(tpsLine.replaceAll("^tps = ([0-9.]+).*", "$1"));
      return new Pgbench(tps, queued, tpsLine, load, Double.parseDouble(plan[0]), plan[1]);
    }

    /** EXPLAIN ANALYZE of one claim at this queue depth, rolled back: {execution ms, what the plan does}. */
    String[] explainClaim() throws SQLException {
      try (Connection c = Database.connect(db.url()); Statement s = c.createStatement()) {
        c.setAutoCommit(false);
        List<String> lines = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE) " + bind(UnbatchedSql.CLAIM, "ARRAY['" + KIND + "']",
            "'00000000-0000-4000-8000-000000000000'::uuid", "'\\x00'::bytea"))) {
          while (rs.next()) {
            lines.add(rs.getString(1));
          }
        }
        c.rollback();
        String all = String.join("\n", lines);
        String ms = all.replaceAll("(?s).*Execution Time: ([0-9.]+) ms.*", "$1");
        String what;
        if (all.contains("Sort") && all.contains("Seq Scan on pipeline_jobs")) {
          what =
              "reads every queued job (sequential scan), joins each with its file, sorts them all, then locks the first";
        } else if (all.contains("Sort")) {
          what = "sorts the queued jobs before taking the first";
        } else {
          what = "walks an index in claim order and stops at the first free job";
        }
        return new String[]{ms, what};
      }
    }

    @Override
    public void close() {
      db.close();
    }
  }

  // ------------------------------------------------------------------------------------ the report

  String section(BenchSupport.Machine machine, String command, List<Row> rows, String probe) {
    StringBuilder md = new StringBuilder();
    md.append(SECTION).append("\n\n");
    md.append(String.format(Locale.ROOT, "Measured %s with `%s`.%n%n", machine.date(), command));
    md.append(machine.markdown());
    Graphile batched = rows.isEmpty() ? null : rows.get(0).graphileBatched();
    String batchedConfig = batched == null || batched.localQueueSize() <= 0 ? "not run"
        : String.format(Locale.ROOT, "`localQueue: { size: %d }`, `completeJobBatchDelay` = `failJobBatchDelay` = %d ms"
            + " (graphile-drain.js's mode `%s`; `batched` alone is size 500 and 0 ms, the configuration of graphile-worker's"
            + " performance page)", batched.localQueueSize(), batched.completeJobBatchDelay(), batched.mode());
    md.append(String.format(Locale.ROOT, "- Peers: graphile-worker %s on %s, with its defaults (no localQueue, no"
        + " completeJobBatchDelay) and, as context, batched: %s; both with per-job logging off and maxPoolSize = max(10,"
        + " concurrency + 2); pgbench %s%n%n",
        rows.isEmpty() ? "?" : rows.get(0).graphile().version(), BenchSupport.firstLine("node", "--version"),
        batchedConfig,
        BenchSupport.firstLine("pgbench", "--version").replaceAll("^pgbench \\(PostgreSQL\\) ", "")));
    md.append(String.format(Locale.ROOT,
        "One job cycle = claim (`jobs/next`), read the input, upload the output, complete;"
            + " tiny bodies (a 13-byte input, a 3-byte output). Each figure drains %,d queued jobs (one file row each) on its own"
            + " database of the same PostgreSQL, VACUUM ANALYZE and CHECKPOINT just before. pgbench runs the cycle's statements as"
            + " the app sent them before it batched, one job per statement (`UnbatchedSql`: CLAIM; INPUT; RECORD_OUTPUT; COMPLETE,"
            + " which calls `pipeline_complete`): the unbatched limit, with `-M prepared` and `-t` so that its clients drain the same number of jobs from a queue as"
            + " deep; the claim commits asynchronously, as the app's asynchronous-commit pool does (pgbench switches"
            + " `synchronous_commit` around it: two more statements per cycle). Per job the app now sends, over HTTP, 4 calls that"
            + " each join a batch of their kind (one statement and, for the output and the complete, one durable commit per"
            + " batch), over the event bus 2 (a claim that names where the input is stored, so no input call; a complete carrying the small output); pgbench: 6 round trips and 2"
            + " durable commits per job, 2 and 2 for graphile-worker with its defaults (get_job, complete_job); batched,"
            + " one query locks up to `localQueue.size` jobs for the whole pool and the completions that come within"
            + " `completeJobBatchDelay` are deleted by one statement. A graphile-worker figure ends once its last completion is in"
            + " the table (it reports a job complete before its delete commits: that wait took at most %.1f ms); batched, up to"
            + " `localQueue.size` of its timed jobs may already have been fetched during its warm-up. Warm-up, untimed:"
            + " before the first figure the app drained %,d jobs over HTTP in %d s (rounds of %d workers) and %,d over the event bus"
            + " in %d s, so that its JIT had compiled the cycle (the C2 compiler still took about a third of the app's CPU"
            + " 30 s into a fresh JVM's cycles); every graphile-worker process drains %,d jobs before its timed ones.%n%n",
        jobs,
        rows.stream().flatMap(r -> r.reps().stream()).flatMap(x -> Stream.of(x.graphile(), x.graphileBatched()))
            .mapToDouble(Graphile::lagMs).filter(ms -> !Double.isNaN(ms)).max().orElse(Double.NaN),
        httpWarmup.jobs(), httpWarmup.seconds(), WARMUP_WORKERS, busWarmup.jobs(), busWarmup.seconds(), WARMUP));
    md.append(
        "| workers | ours over HTTP (jobs/s) | ours over the event bus | graphile-worker | pgbench, same SQL (cycles/s)"
            + " | HTTP / graphile | bus / graphile | HTTP / pgbench | bus / pgbench | graphile-worker (batched) |"
            + " HTTP / graphile-batched | bus / graphile-batched |\n");
    md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Row r : rows) {
      md.append(String.format(Locale.ROOT,
          "| %d | %,.0f | %,.0f | %,.0f | %,.0f | %.2f | %.2f | %.2f | %.2f | %,.0f | %.2f | %.2f |%n", r.workers(),
          r.http().rate(), r.bus().rate(), r.graphile().rate(), r.pgbench().tps(), r.httpOverGraphile(),
          r.busOverGraphile(), r.httpOverPgbench(), r.busOverPgbench(), r.graphileBatched().rate(),
          r.httpOverGraphileBatched(), r.busOverGraphileBatched()));
    }
    md.append(
        "\n\"graphile-worker\" is graphile-worker with its defaults, against which the goals below are set; the batched"
            + " columns are context: what graphile-worker does when it too claims and completes in batches.\n");
    int reps = rows.isEmpty() ? 0 : rows.get(0).reps().size();
    md.append(String.format(Locale.ROOT,
        "%nEach worker count was measured %d times, the ways one after the other each time;"
            + " the rates are the medians, and each ratio is the median of the ratios within each repetition (its figures ran"
            + " seconds apart). The ratios in each repetition:%n%n",
        reps));
    for (Row r : rows) {
      md.append(String.format(Locale.ROOT, "- %d workers: HTTP / pgbench %s; bus / pgbench %s; HTTP / graphile %s;"
          + " bus / graphile %s; HTTP / graphile-batched %s; bus / graphile-batched %s%n", r.workers(),
          r.each(x -> x.http().rate() / x.pgbench().tps()), r.each(x -> x.bus().rate() / x.pgbench().tps()),
          r.each(x -> x.http().rate() / x.graphile().rate()), r.each(x -> x.bus().rate() / x.graphile().rate()),
          r.each(x -> x.http().rate() / x.graphileBatched().rate()),
          r.each(x -> x.bus().rate() / x.graphileBatched().rate())));
    }
    md.append(
        "\nWhere the CPU went during each figure (the median one of each way; cores used; `app` is the app process,"
            + " `bench` this benchmark's JVM, which holds the HTTP clients, and in the event-bus row the app itself; `tools` are"
            + " node and pgbench):\n\n");
    for (Row r : rows) {
      md.append(String.format(Locale.ROOT, "- %d workers — HTTP: %s (app %.2f ms of CPU per job, PostgreSQL %.2f ms);"
          + " event bus: %s (app %.2f ms per job, PostgreSQL %.2f ms); graphile-worker: %s (node %.2f ms per job, PostgreSQL"
          + " %.2f ms); graphile-worker (batched): %s (node %.2f ms per job, PostgreSQL %.2f ms); pgbench: %s (PostgreSQL %.2f ms"
          + " per cycle)%n",
          r.workers(), CpuMeter.describe(r.http().cpu()), perJob(r.http().cpu(), "app", r.http().rate()),
          perJob(r.http().cpu(), "postgres", r.http().rate()), CpuMeter.describe(r.bus().cpu()),
          perJob(r.bus().cpu(), "bench", r.bus().rate()), perJob(r.bus().cpu(), "postgres", r.bus().rate()),
          CpuMeter.describe(r.graphile().cpu()), perJob(r.graphile().cpu(), "tools", r.graphile().rate()),
          perJob(r.graphile().cpu(), "postgres", r.graphile().rate()), CpuMeter.describe(r.graphileBatched().cpu()),
          perJob(r.graphileBatched().cpu(), "tools", r.graphileBatched().rate()),
          perJob(r.graphileBatched().cpu(), "postgres", r.graphileBatched().rate()),
          CpuMeter.describe(r.pgbench().cpu()),
          perJob(r.pgbench().cpu(), "postgres", r.pgbench().tps())));
    }
    md.append(
        "\n(`postgres` counts every PostgreSQL process on the machine, including other databases' if other work ran;"
            + " `other processes` is other work on the machine during the measurement: the figures are only as good as that is small.)\n");
    md.append(String.format(Locale.ROOT,
        "%n**The HTTP figure is a burst inside the contract's per-worker limit.** A worker may make"
            + " 600 calls a minute, i.e. 150 cycles of 4 calls: sustained, one HTTP worker does at most **2.5 jobs/s**, so 4/8/16"
            + " workers at most 10/20/40 jobs/s, whatever the server can do. The limits were not changed: each worker called from its"
            + " own loopback address (127.1.x.y, so the per-IP limit of 6,000 calls/min never applied) and stopped after %d cycles"
            + " (at most %d calls); the jobs left were drained by freshly registered workers, and the figure is jobs / (sum of the"
            + " rounds' times, registration excluded). To check that the limit held: %s. The event-bus figure is the same cycle"
            + " without HTTP (in-process workers send the same `pipeline.queue` actions with `Requests.ask`), which has no rate"
            + " limit.%n%n",
        BUDGET, rows.stream().mapToInt(r -> r.http().maxCallsOfAWorker()).max().orElse(0), probe));
    md.append(limits(rows));
    md.append(String.format(Locale.ROOT,
        "A measurement during which other processes used more than %.1f cores was taken again"
            + " once (in the first %d s of the run), and the less disturbed of the two kept: %d were.%n%n",
        noisy, retryUntilSeconds,
        retries));
    md.append(goals(rows));
    return md.toString();
  }

  /** What limits the cycle, from this run's own evidence. */
  String limits(List<Row> rows) {
    Row last = rows.get(rows.size() - 1);
    double pgOverGraphile = rows.stream().mapToDouble(r -> r.ratio(x -> x.pgbench().tps() / x.graphile().rate()))
        .max().orElse(Double.NaN);
    return String.format(Locale.ROOT,
        "**What limits it.** (1) The claim. With %,d jobs queued, `EXPLAIN ANALYZE` of `CLAIM` took"
            + " **%.2f ms** on the pgbench database: PostgreSQL %s (the partial index `pipeline_jobs_claim_order` on"
            + " `(created_at, id) WHERE status = 'queued'`, migration V4). (2) The statements: a cycle is 4 round trips to"
            + " PostgreSQL and 2 durable commits (graphile-worker: 2 and 2, and no HTTP: its jobs run inside the process that"
            + " claims them). They also write more: graphile-worker's complete_job deletes the job row, while a cycle here keeps"
            + " the job (people see its state and history), checks the claim on every call, records the output and inserts the"
            + " processed version in the transaction that completes it. pgbench running only those statements, with no app at"
            + " all, reached at most **%.2f×** graphile-worker's rate in this run, so no app on top of them can reach it. (3) The app's own CPU per job (bullets above) next to PostgreSQL's decides"
            + " the ratio to pgbench; with HTTP, 4 requests per job on top, each answered on one event loop (the HTTP verticle"
            + " asks the job-queue instance on its own loop, whose PostgreSQL connections live there too:"
            + " operations.md → One event loop per worker call). (4) The CPU budget: at %d workers, graphile-worker's rate"
            + " (%,.0f jobs/s) with this run's CPU per HTTP job (app %.2f ms, the benchmark's HTTP clients %.2f ms, PostgreSQL"
            + " %.2f ms) would take **%.1f cores** of the machine's %d.%n%n",
        last.pgbench().queued(), last.pgbench().claimMs(), last.pgbench().claimPlan(), pgOverGraphile, last.workers(),
        last.graphile().rate(), perJob(last.http().cpu(), "app", last.http().rate()),
        perJob(last.http().cpu(), "bench", last.http().rate()),
        perJob(last.http().cpu(), "postgres", last.http().rate()),
        coresAt(last.graphile().rate(), last.http().cpu(), last.http().rate()),
        Runtime.getRuntime().availableProcessors());
  }

  /** Cores that {@code cpu} (measured at {@code rate} jobs/s: app, bench, postgres) would take at {@code target} jobs/s. */
  static double coresAt(double target, Map<String, Double> cpu, double rate) {
    double perJobMs = 0;
    for (String group : List.of("app", "bench", "postgres")) {
      perJobMs += perJob(cpu, group, rate);
    }
    return perJobMs * target / 1000;
  }

  /** Milliseconds of CPU of one group per job. */
  static double perJob(Map<String, Double> cpu, String group, double rate) {
    return cpu.getOrDefault(group, Double.NaN) / rate * 1000;
  }

  static String met(boolean met) {
    return met ? "**met**" : "**not met**";
  }

  /** Worker counts at which the goals of issue "The job queue as a batching actor" apply, and their ratios. */
  static final List<Integer> BUS_OVER_GRAPHILE_AT = List.of(4, 8, 16);
  static final List<Integer> HTTP_OVER_GRAPHILE_AT = List.of(8, 16);
  static final List<Integer> OVER_PGBENCH_AT = List.of(4, 8, 16);
  static final double BUS_OVER_GRAPHILE = 1.0;
  static final double HTTP_OVER_GRAPHILE = 0.7;
  static final double OVER_PGBENCH = 1.0;

  static String goals(List<Row> rows) {
    StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
        "Goals (issue \"The job queue as a batching actor\"; the"
            + " median ratios, against graphile-worker with its defaults, not the batched one): the event bus at least %.1f×"
            + " graphile-worker at %s workers; HTTP at least %.1f× graphile-worker at %s; both at least %.1f× pgbench running"
            + " today's statements (one job per statement) at %s.%n%n",
        BUS_OVER_GRAPHILE, counts(BUS_OVER_GRAPHILE_AT),
        HTTP_OVER_GRAPHILE, counts(HTTP_OVER_GRAPHILE_AT), OVER_PGBENCH, counts(OVER_PGBENCH_AT)));
    for (Row r : rows) {
      int n = r.workers();
      b.append(String.format(Locale.ROOT, "- %d workers: event bus %s, %s; HTTP %s, %s%n", n,
          goal(BUS_OVER_GRAPHILE_AT.contains(n), "graphile-worker", r.busOverGraphile(), BUS_OVER_GRAPHILE),
          goal(OVER_PGBENCH_AT.contains(n), "pgbench", r.busOverPgbench(), OVER_PGBENCH),
          goal(HTTP_OVER_GRAPHILE_AT.contains(n), "graphile-worker", r.httpOverGraphile(), HTTP_OVER_GRAPHILE),
          goal(OVER_PGBENCH_AT.contains(n), "pgbench", r.httpOverPgbench(), OVER_PGBENCH)));
    }
    return b.toString();
  }

  /** "**met** against pgbench (1.05× of 1.0×)", or "against graphile-worker 0.25× (no goal at this worker count)". */
  static String goal(boolean applies, String peer, double ratio, double target) {
    return applies
        ? String.format(Locale.ROOT, "%s against %s (%.2f× of %.1f×)", met(ratio >= target), peer, ratio, target)
        : String.format(Locale.ROOT, "against %s %.2f× (no goal at this worker count)", peer, ratio);
  }

  /** "4, 8 and 16". */
  static String counts(List<Integer> counts) {
    List<String> s = counts.stream().map(String::valueOf).toList();
    return s.size() == 1 ? s.get(0) : String.join(", ", s.subList(0, s.size() - 1)) + " and " + s.get(s.size() - 1);
  }
}
