package io.shotstash.bench;

import io.shotstash.bench.BenchSupport.AppProcess;
import io.shotstash.testing.TestApp;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The pipeline benchmarks of issue #3 (bench/pipeline.sh runs this; bench/README.md says what each
 * measures): the full job cycle beside graphile-worker and pgbench ({@link JobCycleBench}), each
 * call's latency for one worker on an idle queue ({@link CallLatencyBench}), idle polling and
 * whether it reaches PostgreSQL ({@link IdlePollBench}), and streaming 1 GiB in and out beside dd
 * and nginx ({@link StreamBench}). Each part writes its own {@code ## } section of
 * docs/benchmarks.md as soon as it is done, replacing only that section.
 *
 * <p>Options ({@code --name=value}): see {@link #DEFAULTS}. {@code jar} is the app's fat jar,
 * {@code node} the folder with graphile-worker installed, {@code work} a scratch folder,
 * {@code out=-} prints only.
 */
public final class PipelineBench {
  static final long STARTED = System.nanoTime();

  /** The options, each given as {@code --name=value}, and their defaults. */
  static final Map<String, String> DEFAULTS = BenchSupport.defaults("""
      parts=cycle,latency,idle,stream
      workers=4,8,16
      # two rounds of 16 HTTP workers, 8 of 4
      jobs=%d
      noisy=0.4
      # untimed job cycles first: two thirds over HTTP, one third over the bus
      warmupSeconds=120
      # each worker count measured this many times; medians reported
      cycleReps=3
      retryUntil=480
      # timed cycles of the lone worker, per way: the 20 slowest are above p99
      latencyCycles=2000
      # untimed cycles of the lone worker first, per way
      latencyWarmup=200
      # ms between inserting the lone worker's job and its claim
      latencyGap=5
      wrkSeconds=10
      wrkThreads=2
      wrkConnections=64
      burstWorkers=100
      busSeconds=5
      busInFlight=64
      streamReps=3
      modes=http,bus,graphile,graphile-batched,pgbench
      # graphile-drain.js's mode for graphile-batched: batched[:localQueue size[:batch delay ms]]
      graphileBatched=batched
      appJvm=
      quiet=0.25
      quietWait=30
      jar=target/shotstash.jar
      node=bench/node
      work=target/bench-pipeline
      out=docs/benchmarks.md
      command=bench/pipeline.sh
      """.formatted(2 * 16 * JobCycleBench.BUDGET));

  private PipelineBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = BenchSupport.parseOptions(args, DEFAULTS);
    List<String> parts = Arrays.asList(o.get("parts").split(","));
    List<Integer> workers =
        Arrays.stream(o.get("workers").split(",")).map(String::strip).map(Integer::parseInt).toList();
    Path jar = Path.of(o.get("jar")).toAbsolutePath();
    Path node = Path.of(o.get("node")).toAbsolutePath();
    Path work = Files.createDirectories(Path.of(o.get("work")).toAbsolutePath());
    Path out = Path.of(o.get("out"));
    String command = o.get("command");
    double quiet = Double.parseDouble(o.get("quiet"));
    int quietWait = Integer.parseInt(o.get("quietWait"));
    Runtime.getRuntime().addShutdownHook(new Thread(BenchSupport::closeAll, "bench-cleanup"));

    BenchSupport.Machine machine = BenchSupport.Machine.probe(work);
    BenchSupport.log("%s", machine.markdown().replace("\n", " "));
    Vertx clientVertx = Vertx.vertx();
    try {
      if (parts.contains("cycle") || parts.contains("latency") || parts.contains("idle")) {
        List<String> appJvm =
            o.get("appJvm").isBlank() ? List.of() : Arrays.asList(o.get("appJvm").strip().split("\\s+"));
        AppProcess app = BenchSupport.open(new AppProcess(clientVertx, jar, work, "queue", appJvm));
        app.setupAndLogin();
        TestApp inProcess =
            BenchSupport.open(TestApp.start(Map.of("SHOTSTASH_DB_POOL_SIZE", "8", "SHOTSTASH_HTTP_INSTANCES", "0")));
        int jobs = Integer.parseInt(o.get("jobs"));
        JobCycleBench cycle = new JobCycleBench(clientVertx, app, inProcess, work, node, jobs,
            Double.parseDouble(o.get("noisy")), Integer.parseInt(o.get("retryUntil")),
            Integer.parseInt(o.get("warmupSeconds")));
        List<String> modes = Arrays.asList(o.get("modes").split(","));
        if (parts.contains("cycle")) {
          machine = machine.withBusy(waitForQuiet(quiet, quietWait));
          List<JobCycleBench.Row> rows =
              cycle.run(workers, modes, Integer.parseInt(o.get("cycleReps")), o.get("graphileBatched"));
          write(out, JobCycleBench.SECTION, cycle.section(machine, command, rows, cycle.probe()));
        }
        if (parts.contains("latency")) {
          machine = machine.withBusy(waitForQuiet(quiet, quietWait));
          CallLatencyBench.Result r = new CallLatencyBench(app, inProcess, cycle, work).run(modes,
              Integer.parseInt(o.get("latencyWarmup")), Integer.parseInt(o.get("latencyCycles")),
              Integer.parseInt(o.get("latencyGap")));
          write(out, CallLatencyBench.SECTION, CallLatencyBench.section(machine, command, r));
        }
        if (parts.contains("idle")) {
          machine = machine.withBusy(waitForQuiet(quiet, quietWait));
          IdlePollBench.Result r = new IdlePollBench(clientVertx, app, inProcess, cycle, work).run(
              Integer.parseInt(o.get("wrkSeconds")), Integer.parseInt(o.get("wrkThreads")),
              Integer.parseInt(o.get("wrkConnections")), Integer.parseInt(o.get("burstWorkers")),
              Integer.parseInt(o.get("busSeconds")), Integer.parseInt(o.get("busInFlight")));
          write(out, IdlePollBench.SECTION, IdlePollBench.section(machine, command, r));
        }
        BenchSupport.closeAll();
      }
      if (parts.contains("stream")) {
        int reps = Integer.parseInt(o.get("streamReps"));
        machine = machine.withBusy(waitForQuiet(quiet, quietWait));
        StreamBench stream = new StreamBench(work);
        stream.run(clientVertx, jar, reps);
        write(out, StreamBench.SECTION, stream.section(machine, command, reps));
      }
    } finally {
      BenchSupport.closeAll();
      clientVertx.close();
    }
    BenchSupport.log("done");
    System.exit(0); // Vert.x leaves non-daemon threads behind
  }

  /**
   * Waits (at most {@code maxSeconds}) until other work keeps less than {@code threshold} of the
   * cores busy, so that a part does not start in the middle of someone else's build; returns the
   * share seen last (the run goes on anyway when the machine stays busy: the report shows it).
   */
  static double waitForQuiet(double threshold, int maxSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + maxSeconds * 1_000_000_000L;
    double busy;
    while ((busy = BenchSupport.Machine.busyFraction(2_000)) > threshold && System.nanoTime() < deadline) {
      BenchSupport.log("other work keeps %.0f%% of the cores busy; waiting for it to calm down", 100 * busy);
      Thread.sleep(3_000);
    }
    BenchSupport.log("other work before this part: %.0f%% of the cores", 100 * busy);
    return busy;
  }

  private static void write(Path out, String heading, String section) throws Exception {
    System.out.println();
    System.out.println(section);
    if (!out.toString().equals("-")) {
      BenchSupport.replaceSection(out, heading, section);
      BenchSupport.log("wrote the section '%s' of %s", heading, out);
    }
  }
}
