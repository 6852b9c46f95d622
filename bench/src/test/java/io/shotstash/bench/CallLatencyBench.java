package io.shotstash.bench;

import io.shotstash.bench.BenchSupport.AppProcess;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.media.LocalStorage;
import io.shotstash.testing.TestApp;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The latency of each call of the job cycle for one worker alone on an idle queue: what a lone
 * worker sees when nothing else is happening, so that batching the job queue's calls (issue "The
 * job queue as a batching actor") can be shown to make a lone caller no slower. Before each cycle
 * the benchmark inserts one job of its own kind ({@value #KIND}, so nothing else is ever queued for
 * it) and waits a moment; then the worker claims it, reads the input, uploads the output and
 * completes, each call timed from its start to its answer on the worker's event loop
 * ({@link JobCycleBench#timed}).
 *
 * <ol>
 *   <li><b>HTTP</b>: the app process, one {@link JobCycleBench.HttpWorker} on one keep-alive
 *       connection from its own loopback address. Within the contract's 600 calls a minute: after
 *       at most {@value #CALLS_PER_WORKER} calls a freshly registered worker takes over, primed with
 *       one untimed poll (its token read and cached, its connection open) before its first
 *       cycle.</li>
 *   <li><b>event bus</b>: the in-process app, one {@link JobCycleBench.BusWorker} on one event loop
 *       doing what EventBusWorkerClient does: NEXT (which names the input's storage key), the input read
 *       from storage (no queue call), the output written to storage (forced to
 *       disk), and COMPLETE carrying that small output, which records it and completes.</li>
 * </ol>
 */
record CallLatencyBench(AppProcess app, TestApp inProcess, JobCycleBench cycle, Path work) {
  static final String SECTION = "## Pipeline: call latency, one worker on an idle queue";
  static final String KIND = "bench/lone";
  /**
   * Calls an HTTP worker starts a cycle within before a fresh one takes over: the contract allows
   * 600 a minute, and the rest is room for its priming poll and for claims asked again.
   */
  static final int CALLS_PER_WORKER = 560;
  /** An answer "nothing queued" (the job's NOTIFY not seen yet) is asked again after this long. */
  static final int RETRY_MILLIS = 1;
  static final List<String> HTTP_CALLS = List.of("`POST jobs/next` (the claim)", "`GET` the input", "`PUT` the output",
      "`POST complete`", "whole cycle");
  static final List<String> BUS_CALLS = List.of("`NEXT` (the claim, naming where the input is stored)",
      "the input read from storage (no queue call)",
      "the output written to storage (bytes and name forced to disk; no queue call)", "`COMPLETE` with the output",
      "whole cycle (with reading the input file and writing the output file)");

  /** p50, p99 and the largest of {@code samples} timings, in milliseconds. */
  record Stats(int samples, double p50, double p99, double max) {
    static Stats of(long[] nanos) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return new Stats(sorted.length, percentile(sorted, 0.50) / 1e6, percentile(sorted, 0.99) / 1e6,
          sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6);
    }

    /** Nearest rank: the smallest value with at least {@code p} of the samples at or below it. */
    static double percentile(long[] sorted, double p) {
      return sorted.length == 0 ? Double.NaN : sorted[Math.max(0, (int) Math.ceil(p * sorted.length) - 1)];
    }
  }

  /**
   * One way's figures: per call (in {@code names}' order, the whole cycle last), the answers
   * "nothing queued" that were asked again, the workers used, and where the CPU went.
   */
  record Way(String name, List<String> names, List<Stats> stats, int cycles, int empty, int workers, double seconds,
      Map<String, Double> cpu) {}

  record Result(Way http, Way bus, int warmup, int cycles, int gapMillis, int httpBefore, int busBefore,
      JobCycleBench.Warmup[] warmups) {}

  /**
   * {@code warmup} untimed cycles, then {@code cycles} timed, one way after the other ({@code
   * modes}: http, bus); {@code gapMillis} between a job's insert and the claim.
   */
  Result run(List<String> modes, int warmup, int cycles, int gapMillis) throws Exception {
    if (cycles < 1 || warmup < 0 || gapMillis < 0) {
      throw new IllegalArgumentException("latencyCycles must be at least 1, latencyWarmup and latencyGap at least 0");
    }
    cycle.ready(modes); // the input files, and the app's JIT warm-up when the job cycle did not run first
    int httpBefore = doneOf(app.db.url(), JobCycleBench.KIND);
    int busBefore = doneOf(inProcess.db().url(), JobCycleBench.KIND);
    Way none = new Way("", List.of(), List.of(), 0, 0, 0, Double.NaN, Map.of("busy", Double.NaN, "of", 2.0));
    Way http = none;
    Way bus = none;
    if (modes.contains("http")) {
      http = http(warmup, cycles, gapMillis);
      log(http);
    }
    if (modes.contains("bus")) {
      bus = bus(warmup, cycles, gapMillis);
      log(bus);
    }
    return new Result(http, bus, warmup, cycles, gapMillis, httpBefore, busBefore, cycle.warmups());
  }

  private static void log(Way w) {
    for (int i = 0; i < w.names().size(); i++) {
      Stats s = w.stats().get(i);
      BenchSupport.log("%s %s: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%,d samples)", w.name(), w.names().get(i),
          s.p50(),
          s.p99(), s.max(), s.samples());
    }
    BenchSupport.log("%s: %,d cycles in %.1f s, %d answers \"nothing queued\" asked again, %d worker(s); %s", w.name(),
        w.cycles(), w.seconds(), w.empty(), w.workers(), CpuMeter.describe(w.cpu()));
  }

  static int doneOf(Config.DatabaseUrl url, String kind) throws Exception {
    try (Connection c = Database.connect(url)) {
      return JobCycleBench.count(c,
          "SELECT count(*) FROM pipeline_jobs WHERE status = 'done' AND kind = '" + kind + "'");
    }
  }

  // ------------------------------------------------------------------------------------ the loop

  /** One way's lone worker, as the loop below drives it. */
  interface Lone {
    /** One cycle on the worker's event loop, its whole time put in {@code whole[0]}: true when it did a job. */
    Future<Boolean> cycle(long[] whole);

    /** The nanoseconds of each call of the last cycle that did a job. */
    long[] took();

    /**
     * Before a job is inserted: makes sure the next cycle can make {@code calls} more calls (HTTP: a
     * fresh worker when this one's are spent).
     */
    void room(int calls) throws Exception;
  }

  /**
   * Per cycle: one job inserted, {@code gapMillis} of quiet, then the cycle; an answer "nothing
   * queued" is asked again after {@value #RETRY_MILLIS} ms. The first {@code warmup} cycles are not
   * kept.
   */
  private Way drive(String name, List<String> names, Lone lone, Connection c, List<String> sources, long appPid,
      int warmup,
      int cycles, int gapMillis) throws Exception {
    long[][] samples = new long[names.size()][cycles];
    long[] whole = new long[1];
    int empty = 0;
    JobCycleBench.settle(c);
    CpuMeter cpu = null;
    long t0 = 0;
    for (int i = 0; i < warmup + cycles; i++) {
      if (i == warmup) {
        cpu = CpuMeter.start(appPid);
        t0 = System.nanoTime();
      }
      lone.room(4);
      JobCycleBench.insertJobs(c, sources, 1, KIND);
      Thread.sleep(gapMillis);
      while (!lone.cycle(whole).await(30, TimeUnit.SECONDS)) {
        if (++empty > 100 + cycles / 10) {
          throw new IllegalStateException(
              name + ": the job inserted was not claimable; " + empty + " answers \"nothing queued\"");
        }
        Thread.sleep(RETRY_MILLIS); // the same worker: a fresh one's priming poll would claim the job
      }
      if (i >= warmup) {
        long[] took = lone.took();
        for (int k = 0; k < took.length; k++) {
          samples[k][i - warmup] = took[k];
        }
        samples[names.size() - 1][i - warmup] = whole[0];
      }
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    Map<String, Double> load = cpu.stop();
    int done =
        JobCycleBench.count(c, "SELECT count(*) FROM pipeline_jobs WHERE status = 'done' AND kind = '" + KIND + "'");
    if (done < warmup + cycles) {
      throw new IllegalStateException(name + ": " + done + " jobs done of " + (warmup + cycles));
    }
    List<Stats> stats = new ArrayList<>();
    for (long[] s : samples) {
      stats.add(Stats.of(s));
    }
    return new Way(name, names, stats, cycles, empty, 0, seconds, load);
  }

  /** Runs {@code cycle} on {@code context}, its whole time put in {@code whole[0]}. */
  private static Future<Boolean> timedOn(Context context, long[] whole, Supplier<Future<Boolean>> cycle) {
    return JobCycleBench.on(context, () -> {
      long start = System.nanoTime();
      return cycle.get().map(did -> {
        whole[0] = System.nanoTime() - start;
        return did;
      });
    });
  }

  // ------------------------------------------------------------------------------------ the two ways

  private Way http(int warmup, int cycles, int gapMillis) throws Exception {
    List<JobCycleBench.HttpWorker> used = new ArrayList<>();
    Lone lone = new Lone() {
      JobCycleBench.HttpWorker w;

      @Override
      public Future<Boolean> cycle(long[] whole) {
        return timedOn(w.context, whole, w::cycle);
      }

      @Override
      public long[] took() {
        return w.took;
      }

      @Override
      public void room(int calls) throws Exception {
        if (w != null && w.calls + calls <= CALLS_PER_WORKER) {
          return;
        }
        JobCycleBench.HttpWorker fresh = cycle.new HttpWorker("bench-lone-http-" + used.size());
        JobCycleBench.on(fresh.context, () -> fresh.register(KIND)).await(30, TimeUnit.SECONDS);
        int status = JobCycleBench.on(fresh.context, fresh::next).await(30, TimeUnit.SECONDS).statusCode();
        if (status != 204) {
          throw new IllegalStateException("a fresh worker's priming poll got " + status + ", not 204");
        }
        w = fresh;
        used.add(fresh);
      }
    };
    try (Connection c = app.jdbc()) {
      Way way = drive("HTTP", HTTP_CALLS, lone, c, cycle.httpSources(), app.pid(), warmup, cycles, gapMillis);
      return new Way(way.name(), way.names(), way.stats(), way.cycles(), way.empty(), used.size(), way.seconds(),
          way.cpu());
    } finally {
      used.forEach(w -> w.web.close());
    }
  }

  private Way bus(int warmup, int cycles, int gapMillis) throws Exception {
    Vertx vertx = inProcess.vertx();
    LocalStorage storage = new LocalStorage(vertx, inProcess.dataDir().resolve("media"));
    Path output = Files.writeString(work.resolve("tiny-output.txt"), "ok\n");
    JobCycleBench.BusWorker w = cycle.new BusWorker("bench-lone-bus", storage, output);
    Context context = vertx.getOrCreateContext();
    JobCycleBench.on(context, () -> w.register(KIND)).await(30, TimeUnit.SECONDS);
    Lone lone = new Lone() {
      @Override
      public Future<Boolean> cycle(long[] whole) {
        return timedOn(context, whole, () -> w.cycle(KIND));
      }

      @Override
      public long[] took() {
        return w.took;
      }

      @Override
      public void room(int calls) {
        // the event bus has no rate limit
      }
    };
    try (Connection c = Database.connect(inProcess.db().url())) {
      Way way = drive("event bus", BUS_CALLS, lone, c, cycle.busSources(), 0, warmup, cycles, gapMillis);
      return new Way(way.name(), way.names(), way.stats(), way.cycles(), way.empty(), 1, way.seconds(), way.cpu());
    }
  }

  // ------------------------------------------------------------------------------------ the report

  static String section(BenchSupport.Machine machine, String command, Result r) {
    StringBuilder md = new StringBuilder();
    md.append(SECTION).append("\n\n");
    md.append(String.format(Locale.ROOT, "Measured %s with `%s`.%n%n", machine.date(), command));
    md.append(machine.markdown());
    md.append("\n");
    md.append(String.format(Locale.ROOT,
        "One worker alone on an idle queue, as a lone worker sees it when nothing else is"
            + " happening: before each cycle the benchmark inserts one job of a kind nothing else uses (one `INSERT` on its own"
            + " connection; PostgreSQL's `NOTIFY` tells the app) and waits %d ms, then the worker claims it, reads the input, uploads"
            + " the output and completes (tiny bodies, as in the job-cycle section). Each call is timed from its start to its"
            + " answer, on the worker's event loop; the whole cycle from the claim's start to the completion's answer. %,d untimed"
            + " cycles first, then **%,d timed** for each way. Before them the app process had completed %,d jobs of the job-cycle"
            + " benchmark and the in-process app %,d (the job cycle's figures and its JIT warm-up: %,d jobs over HTTP in %d s, %,d"
            + " over the event bus in %d s). HTTP: the app as its own process (`java -jar`, default settings), the worker on one"
            + " keep-alive connection from its own loopback address; to stay inside the contract's 600 calls a minute a freshly"
            + " registered worker, primed with one untimed poll, took over after at most %d calls (%d workers in all). Event bus:"
            + " the app inside this JVM, one in-process worker on one event loop sending the `pipeline.queue` actions with"
            + " `Requests.ask`, as `EventBusWorkerClient` does.%n%n",
        r.gapMillis(), r.warmup(), r.cycles(), r.httpBefore(),
        r.busBefore(), r.warmups()[0].jobs(), r.warmups()[0].seconds(), r.warmups()[1].jobs(), r.warmups()[1].seconds(),
        CALLS_PER_WORKER, r.http().workers()));
    md.append("| way | call | samples | p50 (ms) | p99 (ms) | max (ms) |\n|---|---|---:|---:|---:|---:|\n");
    for (Way w : List.of(r.http(), r.bus())) {
      for (int i = 0; i < w.names().size(); i++) {
        Stats s = w.stats().get(i);
        md.append(
            String.format(Locale.ROOT, "| %s | %s | %,d | **%.2f** | **%.2f** | %.2f |%n", w.name(), w.names().get(i),
                s.samples(), s.p50(), s.p99(), s.max()));
      }
    }
    md.append(String.format(Locale.ROOT,
        "%nPercentiles by nearest rank over the timed cycles. A claim answered \"nothing"
            + " queued\" (the job's `NOTIFY` not yet seen by the app) was asked again after %d ms and is not a sample: %s over"
            + " HTTP, %s over the event bus.%n%n",
        RETRY_MILLIS, count(r.http()), count(r.bus())));
    md.append(String.format(Locale.ROOT,
        "Where the CPU went during the timed cycles (cores used, the %d ms pauses included;"
            + " `app` is the app process, `bench` this benchmark's JVM, which holds the HTTP client and, for the event bus, the"
            + " app itself): HTTP: %s; event bus: %s.%n%n",
        r.gapMillis(), CpuMeter.describe(r.http().cpu()),
        CpuMeter.describe(r.bus().cpu())));
    md.append("What it is for (issue \"The job queue as a batching actor\"): batching concurrent calls must make a lone"
        + " caller no slower. Compare each call's p50 and p99 with this section measured before the rewrite on the same"
        + " machine (`git log -p docs/benchmarks.md`); other work on the machine shows in `other processes` above.\n");
    return md.toString();
  }

  private static String count(Way w) {
    return w.names().isEmpty() ? "not run" : String.format(Locale.ROOT, "%,d", w.empty());
  }
}
