package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Requests;
import io.shotstash.media.LocalStorage;
import io.shotstash.media.Storage;
import io.shotstash.pipeline.contract.OutputRules;
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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many workers at once on one queue, through the two surfaces that stay when the queue's insides
 * change: the HTTP worker contract and the {@link QueueActions} an in-process worker sends on the
 * event bus. 64 workers drain 2,000 jobs of four kinds; each worker registers one to four of the
 * kinds and loops claim, input, output, complete until the queue answers "no job". Afterwards every
 * job is done once, with one processed version holding the output its own worker sent, no job was
 * handed to two workers and no worker got a kind it does not serve.
 *
 * <p>Only contract-visible answers and database and storage state are checked, never how the queue
 * gets there (one statement per claim or claims batched together), so the test holds for both.
 * Each scenario has kinds of its own ({@code qc-http/...}, {@code qc-bus/...}, {@code qc-mixed/...})
 * and so its own jobs. Every HTTP worker calls from a loopback address of its own (127.0.40.x,
 * 127.0.41.x): one registration per address, far under the 60 an hour, and the per-IP limit
 * (6,000 calls a minute) never applies; a worker makes about 4 calls per job for some 30 jobs, far
 * under its own 600 a minute.
 */
@Timeout(300)
class QueueConcurrencyTest {
  static final int KINDS = 4;
  static final int FILES = 500;
  static final int JOBS = FILES * KINDS;
  static final int WORKERS = 64;
  /** Inputs of different lengths, so that a mixed-up input shows in its size as well as its bytes. */
  static final List<String> SOURCES = List.of("source zero\n", "source one, a little longer\n",
      "source two: longer still, so that sizes differ\n", "3\n");

  static PipelineHarness h;
  /** The HTTP workers' own Vert.x: workers are clients, as separate processes would be. */
  static Vertx clients;
  /** The app's storage folder, as an in-process worker reaches it (EventBusWorkerClient). */
  static LocalStorage storage;
  static Path scratch;
  /** Storage key of each source file -> its content. */
  static final Map<String, String> CONTENT = new HashMap<>();

  @BeforeAll
  static void start() throws IOException {
    h = PipelineHarness.start(Map.of("SHOTSTASH_DB_POOL_SIZE", "8"));
    clients = Vertx.vertx();
    storage = new LocalStorage(h.app.vertx(), h.app.dataDir().resolve("media"));
    scratch = Files.createTempDirectory("queue-concurrency-");
    for (int i = 0; i < SOURCES.size(); i++) {
      String id = h.upload("source-" + i + ".txt", "text/plain", SOURCES.get(i));
      CONTENT.put(h.text("SELECT storage_key FROM media_files WHERE id = '" + id + "'"), SOURCES.get(i));
    }
  }

  @AfterAll
  static void stop() {
    if (clients != null) {
      clients.close().await();
    }
    if (h != null) {
      h.close();
    }
    if (scratch != null) {
      try (Stream<Path> files = Files.walk(scratch)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // a leftover folder under target/ is harmless
      }
    }
  }

  /**
   * The kinds worker {@code i} registers: one, two, three or all four of {@code ns/k0..k3} (by
   * {@code i % 4}), starting at a kind that moves every four workers, so every kind has single-kind
   * workers and multi-kind ones.
   */
  static List<String> kindsOf(String ns, int i) {
    int width = 1 + i % KINDS;
    int first = (i / KINDS) % KINDS;
    return IntStream.range(0, width).mapToObj(j -> ns + "/k" + (first + j) % KINDS).toList();
  }

  @Test
  void sixtyFourHttpWorkersDrainTwoThousandJobsOfFourKinds() throws Exception {
    String ns = "qc-http";
    List<QueueWorker> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      workers.add(new HttpQueueWorker("127.0.40." + (1 + i), ns + "-" + i, kindsOf(ns, i)));
    }
    drainAndCheck(ns, workers);
  }

  @Test
  void sixtyFourEventBusWorkersDrainTwoThousandJobsOfFourKinds() throws Exception {
    String ns = "qc-bus";
    List<QueueWorker> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      workers.add(new BusQueueWorker(ns + "-" + i, kindsOf(ns, i)));
    }
    drainAndCheck(ns, workers);
  }

  @Test
  void httpAndEventBusWorkersDrainTheSameQueueTogether() throws Exception {
    String ns = "qc-mixed";
    List<QueueWorker> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS / 2; i++) {
      workers.add(new HttpQueueWorker("127.0.41." + (1 + i), ns + "-http-" + i, kindsOf(ns, i)));
      workers.add(new BusQueueWorker(ns + "-bus-" + i, kindsOf(ns, i)));
    }
    drainAndCheck(ns, workers);
    int overHttp = workers.stream().filter(w -> w instanceof HttpQueueWorker).mapToInt(w -> w.claimed.size()).sum();
    assertThat(overHttp).as("jobs done over HTTP").isPositive();
    assertThat(JOBS - overHttp).as("jobs done over the event bus").isPositive();
  }

  // ---- one scenario ----

  /**
   * Queues {@value #JOBS} jobs of {@code ns}'s kinds (the workers registered them already), lets
   * every worker drain until the queue answers "no job", then checks what the workers saw and what
   * the database and storage hold.
   */
  private void drainAndCheck(String ns, List<QueueWorker> workers) throws Exception {
    Set<String> kinds = new HashSet<>();
    workers.forEach(w -> kinds.addAll(w.kinds));
    assertThat(kinds).as("every kind has a worker").hasSize(KINDS);
    Map<String, String> expectedInput = queueJobs(ns);

    List<Future<Void>> loops = workers.stream().map(w -> w.drain(expectedInput)).toList();
    Future.join(loops).otherwiseEmpty().await(4, TimeUnit.MINUTES);
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < loops.size(); i++) {
      if (loops.get(i).failed()) {
        failures.add(workers.get(i).name + ": " + loops.get(i).cause());
      }
    }
    assertThat(failures).as("what the workers were answered").isEmpty();

    // no job was handed to two workers, and every job was handed out
    Map<String, List<String>> holders = new HashMap<>();
    workers.forEach(w -> w.claimed.forEach(id -> holders.computeIfAbsent(id, x -> new ArrayList<>()).add(w.name)));
    assertThat(holders.entrySet().stream().filter(e -> e.getValue().size() > 1)
        .map(e -> e.getKey() + " " + e.getValue()).toList())
        .as("jobs handed to two workers (or twice to one)").isEmpty();
    assertThat(expectedInput.keySet().stream().filter(id -> !holders.containsKey(id)).toList())
        .as("jobs never handed out").isEmpty();

    // every job is done, once, with one processed version: the output its worker sent
    String mine = "kind LIKE '" + ns + "/%'";
    assertThat(
        h.rows("SELECT status, attempts, count(*) FROM pipeline_jobs WHERE " + mine + " GROUP BY status, attempts"))
        .as("status, attempts, jobs").containsExactly(List.of("done", 1, (long) JOBS));
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs j WHERE " + mine
        + " AND (SELECT count(*) FROM processed_versions v WHERE v.job_id = j.id) <> 1"))
        .as("jobs without exactly one processed version").isZero();
    assertThat(h.number("SELECT count(*) FROM processed_versions WHERE " + mine)).isEqualTo(JOBS);
    assertThat(h.number("SELECT count(*) FROM pipeline_jobs j JOIN processed_versions v ON v.id = j.version_id "
        + "AND v.job_id = j.id AND v.file_id = j.file_id AND v.kind = j.kind AND v.attempt = 1 WHERE j." + mine
        + " AND j.progress = 100 AND j.finished_at IS NOT NULL")).as("done jobs pointing at their own version")
        .isEqualTo(JOBS);
    Map<String, String> toldDone = new HashMap<>();
    workers.forEach(w -> toldDone.putAll(w.toldDone));
    assertThat(toldDone).hasSize(JOBS);
    List<String> wrongOutputs = new ArrayList<>();
    for (List<Object> row : h.rows("SELECT j.id::text, v.id::text, v.storage_key, v.size FROM pipeline_jobs j "
        + "JOIN processed_versions v ON v.job_id = j.id WHERE j." + mine)) {
      String jobId = (String) row.get(0);
      String expected = output(jobId);
      if (!row.get(1).equals(toldDone.get(jobId))) {
        wrongOutputs.add(jobId + ": version " + row.get(1) + ", its worker was told " + toldDone.get(jobId));
      } else if (((Number) row.get(3)).longValue() != expected.length()
          || !expected.equals(read((String) row.get(2)))) {
        wrongOutputs.add(jobId + ": stored " + read((String) row.get(2)));
      }
    }
    assertThat(wrongOutputs).as("versions whose id or bytes are not what their worker sent and heard").isEmpty();
    int most = workers.stream().mapToInt(w -> w.claimed.size()).max().orElse(0);
    System.out.printf("%s: %d jobs by %d workers, at most %d by one worker%n", ns, holders.size(), workers.size(),
        most);
  }

  /**
   * One file row per job group (a file has at most one open job per kind), each pointing at one of
   * the uploaded sources, and one job per file and kind, all in one statement. Answers job id ->
   * the input its worker must be served.
   */
  private static Map<String, String> queueJobs(String ns) {
    h.sql(PipelineHarness.queueJobsSql(ns, FILES, KINDS));
    Map<String, String> expected = new HashMap<>();
    for (List<Object> row : h
        .rows("SELECT j.id::text, f.storage_key FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id "
            + "WHERE j.kind LIKE '" + ns + "/%' AND j.status = 'queued'")) {
      expected.put((String) row.get(0), CONTENT.get((String) row.get(1)));
    }
    assertThat(expected).hasSize(JOBS).doesNotContainValue(null);
    return expected;
  }

  static String output(String jobId) {
    return "output of " + jobId + "\n";
  }

  private static String read(String storageKey) {
    try {
      return Files.readString(storage.path(storageKey), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(unreadable: " + e + ")";
    }
  }

  // ---- workers ----

  /**
   * One worker, on an event-loop context of its own (as a worker of its own process): claims,
   * reads the input, sends the output, completes, until the queue answers "no job". Any other
   * answer, a job of a kind it does not serve or an input that is not the job's file fails it.
   */
  abstract static class QueueWorker {
    final String name;
    final List<String> kinds;
    /** Every job id this worker was handed. */
    final List<String> claimed = new ArrayList<>();
    /** Job id -> the version id complete answered. */
    final Map<String, String> toldDone = new HashMap<>();
    Map<String, String> expectedInput;

    QueueWorker(String name, List<String> kinds) {
      this.name = name;
      this.kinds = kinds;
    }

    abstract Context context();

    /** One cycle: true when a job was done, false when the queue had no job for this worker. */
    abstract Future<Boolean> cycle();

    Future<Void> drain(Map<String, String> expectedInput) {
      this.expectedInput = expectedInput;
      Promise<Void> done = Promise.promise();
      context().runOnContext(v -> loop().onComplete(done));
      return done.future();
    }

    private Future<Void> loop() {
      return cycle().compose(did -> did ? loop() : Future.succeededFuture());
    }

    /** Checks a claimed job as the worker gets it; answers a failure to stop with, or null. */
    AssertionError checkClaim(JsonObject job) {
      String jobId = job.getString("id");
      String kind = job.getString("kind");
      if (!kinds.contains(kind)) {
        return new AssertionError(name + " serves " + kinds + " and was handed " + jobId + " of kind " + kind);
      }
      if (!expectedInput.containsKey(jobId)) {
        return new AssertionError(name + " was handed " + jobId + " (" + job.getJsonObject("input").getString("name")
            + "), not a job of this scenario");
      }
      claimed.add(jobId);
      if (job.getInteger("attempt") != 1) {
        return new AssertionError(name + " was handed " + jobId + " as attempt " + job.getInteger("attempt"));
      }
      return null;
    }

    AssertionError checkInput(String jobId, String input) {
      return expectedInput.get(jobId).equals(input) ? null
          : new AssertionError(name + " read \"" + input + "\" as the input of " + jobId + ", not its file");
    }
  }

  /** A worker of the HTTP contract, calling from its own loopback address. */
  static final class HttpQueueWorker extends QueueWorker {
    static final String BASE = PipelineHarness.BASE;
    final Context context = clients.getOrCreateContext();
    final WebClient web;
    final String token;

    HttpQueueWorker(String localAddress, String name, List<String> kinds) {
      super(name, kinds);
      web = WebClient.create(clients, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(h.app.port())
          .setLocalAddress(localAddress));
      HttpResponse<Buffer> r = web.post(BASE + "/workers/register")
          .putHeader("X-Worker-Bootstrap-Token", PipelineHarness.BOOTSTRAP)
          .sendJsonObject(new JsonObject().put("manifest", PipelineHarness.manifest(name, kinds))).await();
      assertThat(r.statusCode()).as("register %s: %s", name, r.bodyAsString()).isEqualTo(201);
      token = r.bodyAsJsonObject().getString("token");
    }

    @Override
    Context context() {
      return context;
    }

    private Future<HttpResponse<Buffer>> expect(String call, int status, HttpResponse<Buffer> r) {
      return r.statusCode() == status ? Future.succeededFuture(r)
          : Future.failedFuture(new AssertionError(name + " " + call + ": " + r.statusCode() + " " + r.bodyAsString()));
    }

    @Override
    Future<Boolean> cycle() {
      return web.post(BASE + "/jobs/next").putHeader("X-Worker-Token", token).timeout(60_000).send().compose(next -> {
        if (next.statusCode() == 204) {
          return Future.succeededFuture(false);
        }
        if (next.statusCode() != 200) {
          return Future
              .failedFuture(new AssertionError(name + " jobs/next: " + next.statusCode() + " " + next.bodyAsString()));
        }
        JsonObject job = next.bodyAsJsonObject().getJsonObject("job");
        String id = job.getString("id");
        String claim = job.getString("claimToken");
        AssertionError wrong = checkClaim(job);
        if (wrong != null) {
          return Future.failedFuture(wrong);
        }
        Buffer out = Buffer.buffer(output(id), StandardCharsets.UTF_8.name());
        return web.get(job.getJsonObject("input").getString("url")).putHeader("X-Worker-Token", token)
            .putHeader("X-Claim-Token", claim).timeout(60_000).send()
            .compose(in -> expect("input", 200, in))
            .compose(in -> {
              AssertionError bad = checkInput(id, in.bodyAsString(StandardCharsets.UTF_8.name()));
              return bad != null ? Future.failedFuture(bad)
                  : web.put(BASE + "/jobs/" + id + "/output").putHeader("X-Worker-Token", token)
                      .putHeader("X-Claim-Token", claim)
                      .putHeader("Content-Type", "text/plain").putHeader("X-Output-Ext", "txt").timeout(60_000)
                      .sendBuffer(out);
            })
            .compose(o -> expect("output", 200, o))
            .compose(o -> web.post(BASE + "/jobs/" + id + "/complete").putHeader("X-Worker-Token", token)
                .putHeader("X-Claim-Token", claim).timeout(60_000).send()
                .compose(c -> expect("complete", 200, c))
                .compose(c -> {
                  JsonObject body = c.bodyAsJsonObject();
                  String versionId = o.bodyAsJsonObject().getString("versionId");
                  if (!"done".equals(body.getString("status")) || !versionId.equals(body.getString("versionId"))) {
                    return Future.failedFuture(new AssertionError(name + " complete of " + id + " answered " + body
                        + " after the output answered " + o.bodyAsString()));
                  }
                  toldDone.put(id, versionId);
                  return Future.succeededFuture(true);
                }));
      });
    }
  }

  /**
   * An in-process worker: the {@link QueueActions} messages EventBusWorkerClient sends, each asked
   * of the queue instance on this worker's own event loop. The input is read and the output written
   * where the app's storage keeps them, as that client does.
   */
  static final class BusQueueWorker extends QueueWorker {
    final Context context = h.app.vertx().getOrCreateContext();
    final Vertx vertx = h.app.vertx();
    final Path outputFile;
    final String workerId;

    BusQueueWorker(String name, List<String> kinds) {
      super(name, kinds);
      outputFile = scratch.resolve(name + ".out");
      JsonObject manifest = PipelineHarness.manifest(name, kinds);
      workerId = Requests.ask(vertx, h.app.queueLoops().address(), QueueActions.REGISTER,
          new JsonObject().put("manifest", manifest)).await().getString("workerId");
    }

    @Override
    Context context() {
      return context;
    }

    /** As EventBusWorkerClient asks (called on this worker's event loop). */
    private Future<JsonObject> ask(String action, JsonObject body) {
      return Requests.ask(vertx, h.app.queueLoops().address(), action, body)
          .recover(err -> Future.failedFuture(new AssertionError(name + " " + action + ": " + err, err)));
    }

    @Override
    Future<Boolean> cycle() {
      return ask(QueueActions.NEXT, new JsonObject().put("workerId", workerId).put("kinds", new JsonArray(kinds)))
          .compose(reply -> {
            JsonObject job = reply.getJsonObject("job");
            if (job == null) {
              return Future.succeededFuture(false);
            }
            String id = job.getString("id");
            AssertionError wrong = checkClaim(job);
            if (wrong != null) {
              return Future.failedFuture(wrong);
            }
            JsonObject claim = new JsonObject().put("workerId", workerId).put("jobId", id)
                .put("claimToken", job.getString("claimToken"));
            String versionId = UUID.randomUUID().toString();
            String key = Storage.versionKey(versionId, "txt");
            Buffer out = Buffer.buffer(output(id), StandardCharsets.UTF_8.name());
            return ask(QueueActions.INPUT, claim)
                .compose(file -> vertx.fileSystem().readFile(storage.path(file.getString("storageKey")).toString()))
                .compose(input -> {
                  AssertionError bad = checkInput(id, input.toString(StandardCharsets.UTF_8));
                  return bad != null ? Future.failedFuture(bad)
                      : vertx.fileSystem().writeFile(outputFile.toString(), out);
                })
                .compose(v -> OutputRules.claimCheckedFirst(out.length(), false)
                    ? ask(QueueActions.BEGIN_OUTPUT, claim).mapEmpty() : Future.succeededFuture())
                .compose(v -> vertx.fileSystem().open(outputFile.toString(),
                    new OpenOptions().setRead(true).setWrite(false)))
                .compose(in -> {
                  in.pause();
                  return storage.write(key, in, 1 << 20, out.length()).eventually(() -> in.close().otherwiseEmpty());
                })
                .compose(written -> ask(QueueActions.RECORD_OUTPUT, claim.copy().put("versionId", versionId)
                    .put("storageKey", key).put("mimeType", "text/plain").put("ext", "txt")
                    .put("size", written.size())))
                .compose(recorded -> ask(QueueActions.COMPLETE, claim))
                .compose(done -> {
                  if (!"done".equals(done.getString("status")) || !versionId.equals(done.getString("versionId"))) {
                    return Future.failedFuture(new AssertionError(name + " complete of " + id + " answered " + done
                        + " for version " + versionId));
                  }
                  toldDone.put(id, versionId);
                  return Future.succeededFuture(true);
                });
          });
    }
  }
}
