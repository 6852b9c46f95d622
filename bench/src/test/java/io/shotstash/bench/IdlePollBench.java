package io.shotstash.bench;

import io.shotstash.bench.BenchSupport.AppProcess;
import io.shotstash.media.LocalStorage;
import io.shotstash.testing.TestApp;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Idle polling: {@code jobs/next} with nothing queued for the worker's kinds, three ways, and
 * whether PostgreSQL saw any of it (pg_stat_database's transaction count of the app's database,
 * read from another database, over a window without polls and one with them; PostgreSQL 15 flushes
 * a backend's counts within about 10 s, so each window ends 15 s after the last poll).
 *
 * <ol>
 *   <li>wrk (C, Debian's package) from 127.0.0.1 with one worker token: the contract's limits apply
 *       (600 calls/min for the worker, 6,000 for the IP), so after the first calls every answer is a
 *       429 — counted separately, as both kinds of answer skip PostgreSQL.</li>
 *   <li>a burst of pure 204s within the limits: many workers, each from its own loopback address,
 *       each making its allowed ~600 calls (Vert.x WebClient in this JVM, one connection each).</li>
 *   <li>QueueActions.NEXT over the event bus in-process (no HTTP, no limit).</li>
 * </ol>
 */
record IdlePollBench(Vertx clientVertx, AppProcess app, TestApp inProcess, JobCycleBench cycle, Path work) {
  static final String SECTION = "## Pipeline: idle polling";
  static final String KIND = "bench/idle";

  record Wrk(double seconds, long requests, double rate, Map<Integer, Long> statuses, String summary,
      Map<String, Double> cpu) {}

  record Burst(int workers, long polls, double seconds, Map<Integer, Long> statuses, Map<String, Double> cpu) {
    double rate() {
      return polls / seconds;
    }
  }

  record Bus(long polls, double seconds, int inFlight, Map<String, Double> cpu) {
    double rate() {
      return polls / seconds;
    }
  }

  record Stats(long idleWindow, double idleSeconds, long pollWindow, double pollSeconds, long busIdleWindow,
      long busPollWindow) {}

  record Result(Wrk wrk, Burst burst, Bus bus, Stats stats, int wrkThreads, int wrkConnections) {}

  Result run(int wrkSeconds, int wrkThreads, int wrkConnections, int burstWorkers, int busSeconds, int busInFlight)
      throws Exception {
    // --- workers, registered and primed before any counting: the first poll of a kind asks PostgreSQL
    //     once (then the LISTEN-fed signal knows the kind has nothing queued), and the first call of
    //     a token reads the worker once (then it is cached)
    JobCycleBench.HttpWorker wrkWorker = cycle.new HttpWorker("bench-idle-wrk");
    wrkWorker.register(KIND).await();
    expect204(wrkWorker.next().await());
    List<JobCycleBench.HttpWorker> burst = new ArrayList<>();
    List<Future<Void>> registered = new ArrayList<>();
    for (int i = 0; i < burstWorkers; i++) {
      JobCycleBench.HttpWorker w = cycle.new HttpWorker("bench-idle-" + i);
      burst.add(w);
      registered.add(w.register(KIND).compose(v -> w.next()).compose(r -> {
        expect204(r);
        return Future.<Void>succeededFuture();
      }));
    }
    Future.all(registered).await(60, TimeUnit.SECONDS);
    LocalStorage storage = new LocalStorage(inProcess.vertx(), inProcess.dataDir().resolve("media"));
    JobCycleBench.BusWorker busWorker = cycle.new BusWorker("bench-idle-bus", storage, null);
    busWorker.register(KIND).await();
    if (busWorker.next(KIND).await().containsKey("job")) {
      throw new IllegalStateException("a job was queued for " + KIND);
    }

    // --- a window without polls
    BenchSupport.log("idle window: 25 s without polls (background work of the app only)");
    Thread.sleep(12_000); // let the counts of registration and priming reach pg_stat_database
    long s0 = BenchSupport.transactions(app.db);
    long b0 = BenchSupport.transactions(inProcess.db());
    long t0 = System.nanoTime();
    Thread.sleep(25_000);
    long s1 = BenchSupport.transactions(app.db);
    long b1 = BenchSupport.transactions(inProcess.db());
    long t1 = System.nanoTime();

    // --- the polls
    Wrk wrk = wrk(wrkWorker.token, wrkSeconds, wrkThreads, wrkConnections);
    BenchSupport.log("wrk: %,d polls in %.1f s = %,.0f/s, answers %s; %s", wrk.requests(), wrk.seconds(), wrk.rate(),
        wrk.statuses(), CpuMeter.describe(wrk.cpu()));
    Burst b = burst(burst);
    BenchSupport.log("burst: %,d polls by %d workers in %.2f s = %,.0f/s, answers %s; %s", b.polls(), b.workers(),
        b.seconds(),
        b.rate(), b.statuses(), CpuMeter.describe(b.cpu()));
    Bus bus = bus(busWorker, busSeconds, busInFlight);
    BenchSupport.log("event bus: %,d NEXT in %.1f s = %,.0f/s; %s", bus.polls(), bus.seconds(), bus.rate(),
        CpuMeter.describe(bus.cpu()));
    Thread.sleep(15_000);
    long s2 = BenchSupport.transactions(app.db);
    long b2 = BenchSupport.transactions(inProcess.db());
    long t2 = System.nanoTime();
    Stats stats = new Stats(s1 - s0, (t1 - t0) / 1e9, s2 - s1, (t2 - t1) / 1e9, b1 - b0, b2 - b1);
    BenchSupport.log("PostgreSQL transactions of the app's database: %d in the idle window, %d in the polling window;"
        + " in-process app's: %d and %d", stats.idleWindow(), stats.pollWindow(), stats.busIdleWindow(),
        stats.busPollWindow());
    burst.forEach(w -> w.web.close());
    wrkWorker.web.close();
    return new Result(wrk, b, bus, stats, wrkThreads, wrkConnections);
  }

  private static void expect204(HttpResponse<Buffer> r) {
    if (r.statusCode() != 204) {
      throw new IllegalStateException("expected 204 from jobs/next, got " + r.statusCode() + " " + r.bodyAsString());
    }
  }

  static final String WRK_SCRIPT = """
      -- POST jobs/next with one worker's token; counts the answers by status over all threads
      wrk.method = "POST"
      wrk.headers["X-Worker-Token"] = os.getenv("WORKER_TOKEN")
      local threads = {}
      function setup(thread) table.insert(threads, thread) end
      function init(args) statuses = {} end
      function response(status, headers, body) statuses[status] = (statuses[status] or 0) + 1 end
      function done(summary, latency, requests)
        local total = {}
        for _, t in ipairs(threads) do
          for k, v in pairs(t:get("statuses")) do total[k] = (total[k] or 0) + v end
        end
        for k, v in pairs(total) do io.write(string.format("status %d %d\\n", k, v)) end
      end
      """;

  private Wrk wrk(String token, int seconds, int threads, int connections) throws Exception {
    Path script = Files.writeString(work.resolve("jobs-next.lua"), WRK_SCRIPT);
    CpuMeter cpu = CpuMeter.start(app.pid());
    long t0 = System.nanoTime();
    BenchSupport.Output o =
        BenchSupport.run(Duration.ofSeconds(seconds + 30), Map.of("WORKER_TOKEN", token), null, "wrk",
            "-t" + threads, "-c" + connections, "-d" + seconds + "s", "-s", script.toString(),
            app.baseUrl() + "/api/v1/pipeline/jobs/next");
    double elapsed = (System.nanoTime() - t0) / 1e9;
    Map<String, Double> load = cpu.stop();
    if (o.exit() != 0) {
      throw new IllegalStateException("wrk failed: " + o.all());
    }
    Map<Integer, Long> statuses = new TreeMap<>();
    long requests = 0;
    double rate = 0;
    for (String line : o.stdout().lines().toList()) {
      String l = line.strip();
      if (l.startsWith("status ")) {
        String[] f = l.split(" ");
        statuses.put(Integer.parseInt(f[1]), Long.parseLong(f[2]));
      } else if (l.matches("\\d+ requests in .*")) {
        requests = Long.parseLong(l.split(" ")[0]);
      } else if (l.startsWith("Requests/sec:")) {
        rate = Double.parseDouble(l.replaceAll("[^0-9.]", ""));
      }
    }
    String summary = o.stdout().lines().filter(l -> l.contains("requests in") || l.contains("Requests/sec")
        || l.contains("Latency") || l.contains("Non-2xx") || l.contains("Socket errors")).map(String::strip)
        .reduce((x, y) -> x + "; " + y).orElse("");
    return new Wrk(elapsed, requests, rate, statuses, summary, load);
  }

  /**
   * Each worker makes its remaining allowed polls (598 after registration and one priming poll) on
   * one keep-alive connection from its own address, one request at a time (no pipelining). The
   * client is a plain NIO loop in one thread ({@link RawPoller}) so that it costs little beside the app.
   */
  private Burst burst(List<JobCycleBench.HttpWorker> workers) throws Exception {
    CpuMeter cpu = CpuMeter.start(app.pid());
    long t0 = System.nanoTime();
    Map<Integer, Long> counts = new RawPoller(app.port, workers, 598).run(Duration.ofSeconds(120));
    double seconds = (System.nanoTime() - t0) / 1e9;
    Map<String, Double> load = cpu.stop();
    long polls = counts.values().stream().mapToLong(Long::longValue).sum();
    return new Burst(workers.size(), polls, seconds, counts, load);
  }

  /** A minimal HTTP/1.1 client: one connection per worker, a request written as soon as the previous answer is read. */
  static final class RawPoller {
    private final int port;
    private final List<JobCycleBench.HttpWorker> workers;
    private final int perWorker;

    RawPoller(int port, List<JobCycleBench.HttpWorker> workers, int perWorker) {
      this.port = port;
      this.workers = workers;
      this.perWorker = perWorker;
    }

    private static final class Conn {
      final java.nio.channels.SocketChannel channel;
      final java.nio.ByteBuffer request;
      final java.nio.ByteBuffer in = java.nio.ByteBuffer.allocate(64 * 1024);
      int left;

      Conn(java.nio.channels.SocketChannel channel, byte[] request, int left) {
        this.channel = channel;
        this.request = java.nio.ByteBuffer.wrap(request);
        this.left = left;
      }
    }

    Map<Integer, Long> run(Duration timeout) throws IOException {
      Map<Integer, Long> statuses = new TreeMap<>();
      try (java.nio.channels.Selector selector = java.nio.channels.Selector.open()) {
        int open = 0;
        for (JobCycleBench.HttpWorker w : workers) {
          java.nio.channels.SocketChannel ch = java.nio.channels.SocketChannel.open();
          ch.bind(new java.net.InetSocketAddress(w.ip, 0));
          ch.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
          ch.connect(new java.net.InetSocketAddress("127.0.0.1", port));
          ch.configureBlocking(false);
          byte[] request = ("POST /api/v1/pipeline/jobs/next HTTP/1.1\r\nHost: 127.0.0.1:" + port
              + "\r\nX-Worker-Token: " + w.token + "\r\nContent-Length: 0\r\n\r\n")
              .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
          Conn c = new Conn(ch, request, perWorker);
          ch.register(selector, java.nio.channels.SelectionKey.OP_READ, c);
          send(c);
          open++;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (open > 0) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException("the poll burst did not finish in " + timeout.toSeconds() + " s");
          }
          selector.select(1000);
          for (java.nio.channels.SelectionKey key : selector.selectedKeys()) {
            Conn c = (Conn) key.attachment();
            if (c.channel.read(c.in) < 0) {
              throw new IllegalStateException("the app closed a poll connection");
            }
            c.in.flip();
            int status;
            boolean answered = false;
            while ((status = nextResponse(c.in)) > 0) {
              statuses.merge(status, 1L, Long::sum);
              c.left--;
              answered = true;
            }
            c.in.compact();
            if (c.left == 0) {
              key.cancel();
              c.channel.close();
              open--;
            } else if (answered && c.in.position() == 0) {
              send(c); // the previous answer is complete and nothing else is pending
            }
          }
          selector.selectedKeys().clear();
        }
      }
      return statuses;
    }

    private static void send(Conn c) throws IOException {
      c.request.rewind();
      while (c.request.hasRemaining()) {
        c.channel.write(c.request);
      }
    }

    /** Consumes one complete response from {@code buf} and returns its status, or 0 (buffer untouched) if incomplete. */
    private static int nextResponse(java.nio.ByteBuffer buf) {
      int start = buf.position();
      int end = -1;
      for (int i = start; i + 3 < buf.limit(); i++) {
        if (buf.get(i) == '\r' && buf.get(i + 1) == '\n' && buf.get(i + 2) == '\r' && buf.get(i + 3) == '\n') {
          end = i + 4;
          break;
        }
      }
      if (end < 0) {
        return 0;
      }
      byte[] head = new byte[end - start];
      buf.get(start, head);
      String headers = new String(head, java.nio.charset.StandardCharsets.US_ASCII);
      int status = Integer.parseInt(headers.substring(9, 12));
      int length = 0;
      for (String line : headers.split("\r\n")) {
        if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
          length = Integer.parseInt(line.substring(15).strip());
        }
      }
      if (buf.limit() < end + length) {
        return 0;
      }
      buf.position(end + length);
      return status;
    }
  }

  private Bus bus(JobCycleBench.BusWorker worker, int seconds, int inFlight) throws Exception {
    AtomicLong polls = new AtomicLong();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    CpuMeter cpu = CpuMeter.start(0);
    long t0 = System.nanoTime();
    List<Future<Void>> loops = new ArrayList<>();
    for (int i = 0; i < inFlight; i++) {
      Promise<Void> p = Promise.promise();
      Context ctx = inProcess.vertx().getOrCreateContext();
      ctx.runOnContext(v -> busLoop(worker, deadline, polls).onComplete(p));
      loops.add(p.future());
    }
    Future.all(loops).await(seconds + 30L, TimeUnit.SECONDS);
    double elapsed = (System.nanoTime() - t0) / 1e9;
    return new Bus(polls.get(), elapsed, inFlight, cpu.stop());
  }

  /**
   * NEXT after NEXT until the deadline. A local reply can complete on the caller's stack, so the
   * loop goes back to the event loop (runOnContext) every 32 polls instead of growing the stack.
   */
  private static Future<Void> busLoop(JobCycleBench.BusWorker w, long deadline, AtomicLong polls) {
    Promise<Void> done = Promise.promise();
    busStep(w, deadline, polls, 0, done);
    return done.future();
  }

  private static void busStep(JobCycleBench.BusWorker w, long deadline, AtomicLong polls, int depth,
      Promise<Void> done) {
    if (System.nanoTime() >= deadline) {
      done.tryComplete();
      return;
    }
    w.next(KIND).onComplete(ar -> {
      if (ar.failed() || ar.result().containsKey("job")) {
        done.tryFail(ar.failed() ? ar.cause().toString() : "a job was queued for " + KIND);
        return;
      }
      polls.incrementAndGet();
      if (depth >= 32) {
        w.vertx.runOnContext(v -> busStep(w, deadline, polls, 0, done));
      } else {
        busStep(w, deadline, polls, depth + 1, done);
      }
    });
  }

  // ------------------------------------------------------------------------------------ the report

  static String section(BenchSupport.Machine machine, String command, Result r) {
    StringBuilder md = new StringBuilder();
    md.append(SECTION).append("\n\n");
    md.append(String.format(Locale.ROOT, "Measured %s with `%s`.%n%n", machine.date(), command));
    md.append(machine.markdown());
    md.append(String.format(Locale.ROOT, "- Load generators: %s (Debian), and a minimal NIO HTTP/1.1 client in the"
        + " benchmark's JVM (one thread, one keep-alive connection per worker, no pipelining); both on the same 2 cores as the app%n%n",
        BenchSupport.firstLine("wrk", "-v")));
    md.append("`POST /api/v1/pipeline/jobs/next` from registered workers whose kind has nothing queued, against the app"
        + " started with `java -jar` (default settings: one HTTP verticle per core, the contract's rate limits unchanged).\n\n");
    md.append("| load | polls | seconds | polls/s | answers |\n|---|---:|---:|---:|---|\n");
    md.append(String.format(Locale.ROOT,
        "| wrk, %d threads, %d connections, one token from 127.0.0.1 | %,d | %.1f | **%,.0f** | %s |%n",
        r.wrkThreads(), r.wrkConnections(), r.wrk().requests(), r.wrk().seconds(), r.wrk().rate(),
        statuses(r.wrk().statuses())));
    md.append(String.format(Locale.ROOT,
        "| %d workers, each from its own loopback address, 598 polls each, one connection each"
            + " | %,d | %.2f | **%,.0f** | %s |%n",
        r.burst().workers(), r.burst().polls(), r.burst().seconds(), r.burst().rate(),
        statuses(r.burst().statuses())));
    md.append(
        String.format(Locale.ROOT,
            "| `QueueActions.NEXT` over the event bus, in-process, %d in flight | %,d | %.1f | **%,.0f**"
                + " | all empty (no job) |%n%n",
            r.bus().inFlight(), r.bus().polls(), r.bus().seconds(), r.bus().rate()));
    md.append(String.format(Locale.ROOT,
        "CPU (cores used): wrk: %s, i.e. **%.0f µs of app CPU per answer**; burst: %s, i.e."
            + " **%.0f µs of app CPU per `204`**; event bus: %s, i.e. %.1f µs per NEXT. On 2 cores with nothing else running, the app"
            + " could answer at most about %,.0f pure-`204` polls/s at that cost.%n%n",
        CpuMeter.describe(r.wrk().cpu()),
        r.wrk().cpu().get("app") / r.wrk().rate() * 1e6, CpuMeter.describe(r.burst().cpu()),
        r.burst().cpu().get("app") / r.burst().rate() * 1e6, CpuMeter.describe(r.bus().cpu()),
        r.bus().cpu().get("bench") / r.bus().rate() * 1e6, 2 / (r.burst().cpu().get("app") / r.burst().rate())));
    md.append(String.format(Locale.ROOT, "wrk's own summary: %s.%n%n", r.wrk().summary()));
    long polls = r.wrk().requests() + r.burst().polls() + r.bus().polls();
    md.append(String.format(Locale.ROOT,
        "**PostgreSQL saw none of it.** Transactions PostgreSQL counted for the app's database"
            + " (`pg_stat_database.xact_commit + xact_rollback`, read from another database): **%d** in a %.0f s window without"
            + " polls, **%d** in the %.0f s window holding the wrk run and the burst (%,d HTTP polls) and ending 15 s after them;"
            + " for the in-process app's database %d and %d around its %,d event-bus polls. A poll that reached PostgreSQL would"
            + " count at least one transaction (the claim; an empty claim adds the `NEXT_RUN_AFTER` read), so the counts are the"
            + " app's own background work (lease sweeps every 30 s and the like), not the polls: each node's `QueueSignal`, fed by"
            + " `LISTEN pipeline_queued`, knows the kind has nothing queued, and the worker's token is cached after its first"
            + " call.%n%n",
        r.stats().idleWindow(), r.stats().idleSeconds(), r.stats().pollWindow(), r.stats().pollSeconds(),
        r.wrk().requests() + r.burst().polls(), r.stats().busIdleWindow(), r.stats().busPollWindow(), r.bus().polls()));
    md.append(String.format(Locale.ROOT,
        "About the limits: the contract allows a worker 600 calls a minute and an address 6,000."
            + " wrk sends from one address with one token, so only its first ~600 polls are answered `204` and the rest `429`"
            + " (`Retry-After`), first by the worker's limit and, past 6,000, by the address's limit before the token is even looked"
            + " up: its rate is mostly that of refusals. The burst row is pure `204`s inside the limits; to stay inside them it is"
            + " short, %,d polls. A worker that follows the contract polls far less (it sleeps a few seconds after a `204`).%n%n",
        r.burst().polls()));
    boolean burstMet = r.burst().rate() >= 20_000;
    boolean wrkMet = r.wrk().rate() >= 20_000;
    boolean busMet = r.bus().rate() >= 20_000;
    md.append(String.format(Locale.ROOT,
        "Goal (no PostgreSQL for an idle poll; at least 20,000 polls/s): PostgreSQL part"
            + " **%s**; rate: wrk (204 + 429) %s (%,.0f/s), pure-204 burst %s (%,.0f/s), event bus %s (%,.0f/s).%n",
        r.stats().pollWindow() <= r.stats().idleWindow() + 5 ? "met" : "not met (see the counts)",
        wrkMet ? "**met**" : "**not met**", r.wrk().rate(), burstMet ? "**met**" : "**not met**", r.burst().rate(),
        busMet ? "**met**" : "**not met**", r.bus().rate()));
    return md.toString();
  }

  private static String statuses(Map<Integer, Long> s) {
    StringBuilder b = new StringBuilder();
    s.forEach((k, v) -> b.append(b.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%,d × `%d`", v, k)));
    return b.toString();
  }
}
