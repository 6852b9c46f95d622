package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.ClusterNodes;
import io.shotstash.testing.ClusterNodes.Node;
import io.shotstash.testing.Folders;
import io.shotstash.testing.Teardown;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kill -9} of the real app (the jar, its own JVM) while 24 HTTP workers cycle jobs (claim,
 * input, output, complete) with calls in flight, then a restart on the same database and data
 * folder. Whatever the queue batches or defers inside, a kill may only cost answers, never work:
 *
 * <ul>
 *   <li>right after the restart every job is done, queued or leased (claimed or running): none is
 *       lost; a done job has its processed version and the version's stored file; a job is done only
 *       if a worker asked to complete it; every job a worker was told "done" (200 from complete) is
 *       done with the version it was told; a lease nobody heard of exists only for a
 *       {@code jobs/next} the kill cut off;</li>
 *   <li>the workers then carry on as the contract tells them: they repeat the call the kill cut off
 *       while their claim holds (a claim answered before the kill still holds after it; a 503 is
 *       answered by the same call after its Retry-After), and a
 *       complete that had gone through answers {@code 409 JOB_TERMINAL}; the claims nobody heard of
 *       are taken back by the sweeper (their lease moved into the past in the database: the lease
 *       setting cannot go under 61 s) and drained too;</li>
 *   <li>in the end every job is done exactly once, with one processed version holding the bytes its
 *       worker sent, each job was handed out (answered) exactly once, and no temporary file is left.</li>
 * </ul>
 *
 * Each worker calls from a loopback address of its own (127.0.42.x): one registration per address,
 * and some 45 jobs (about 180 calls) per worker in all, under the contract's 600 calls a minute.
 */
@Timeout(600)
class KillDuringBatchesIT {
  static final int WORKERS = 24;
  static final int KINDS = 4;
  static final int FILES = 250;
  static final int JOBS = FILES * KINDS;
  /** The kill comes once this many jobs were told done: a third of the way, with every worker busy. */
  static final int KILL_AFTER = JOBS / 3;
  static final String NS = "kill";
  static final String MINE = "kind LIKE '" + NS + "/%'";
  static final List<String> SOURCES = List.of("source zero\n", "source one, a little longer\n",
      "source two: longer still, so that sizes differ\n", "3\n");

  static Vertx vertx;
  static ClusterNodes app;
  static Node node;
  static String admin;
  /** Storage key of each source file -> its content. */
  static final Map<String, String> CONTENT = new HashMap<>();

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    // a long lease, so that no claim a worker holds can run out while the app restarts on a busy
    // machine; the leases nobody heard of are moved into the past in the database instead
    app = ClusterNodes.create(vertx, ClusterNodes.jar(), 1, Map.of("SHOTSTASH_PIPELINE_SWEEP_SECONDS", "1",
        "SHOTSTASH_PIPELINE_LEASE_SECONDS", "600"), List.of("-Xmx256m"), false);
    admin = app.startFirst(Duration.ofSeconds(90));
    node = app.node(0);
    String folder = Folders.create(node.http, admin, "inputs");
    for (int i = 0; i < SOURCES.size(); i++) {
      HttpResponse<Buffer> up = node.http.post("/api/v1/files").bearerTokenAuthentication(admin)
          .addQueryParam("folderId", folder).putHeader("Content-Type", "text/plain")
          .putHeader("X-File-Name", "source-" + i + ".txt")
          .sendBuffer(Buffer.buffer(SOURCES.get(i), StandardCharsets.UTF_8.name())).await();
      assertThat(up.statusCode()).as(up.bodyAsString()).isEqualTo(201);
      String id = up.bodyAsJsonObject().getJsonObject("data").getString("id");
      CONTENT.put(app.db().text("SELECT storage_key FROM media_files WHERE id = '" + id + "'"), SOURCES.get(i));
    }
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(app, Teardown.of(vertx));
  }

  /** One, two, three or all four kinds (by {@code i % 4}), from a kind that moves every four workers. */
  static List<String> kindsOf(int i) {
    int width = 1 + i % KINDS;
    int first = (i / KINDS) % KINDS;
    return IntStream.range(0, width).mapToObj(j -> NS + "/k" + (first + j) % KINDS).toList();
  }

  static String output(String jobId) {
    return "output of " + jobId + "\n";
  }

  @Test
  void aKillWhileWorkersCycleLosesNoJobAndNoCompletion() throws Exception {
    List<Worker> workers = new ArrayList<>();
    for (int i = 0; i < WORKERS; i++) {
      workers.add(new Worker("127.0.42." + (1 + i), NS + "-" + i, kindsOf(i)));
    }
    Map<String, String> expectedInput = queueJobs();

    // ---- the workers cycle; the app is killed with calls in flight ----
    List<Future<Outcome>> runs = workers.stream().map(w -> w.run(expectedInput)).toList();
    app.eventually(KILL_AFTER + " jobs told done", Duration.ofSeconds(120),
        () -> LEDGER.toldDone.size() >= KILL_AFTER || runs.stream().anyMatch(Future::isComplete));
    assertThat(LEDGER.unexpected).isEmpty();
    assertThat(runs).as("no worker stopped before the kill").noneMatch(Future::isComplete);
    app.eventually("calls in flight", Duration.ofSeconds(10), () -> LEDGER.inFlight.get() > 0);
    LEDGER.killedAt = System.nanoTime();
    node.kill();
    // the process is gone now: a call that started before this and failed was in flight when it died
    // (the kill itself takes a few ms, a call one or two: those that began after killedAt count too)
    LEDGER.deadAt = System.nanoTime();
    List<Outcome> atKill = outcomes(runs);
    LEDGER.countCutInFlight();
    assertThat(LEDGER.unexpected).isEmpty();
    assertThat(atKill).as("every worker lost its connection").containsOnly(Outcome.CUT);
    int cutInFlight = LEDGER.cutInFlight.values().stream().mapToInt(AtomicInteger::get).sum();
    assertThat(cutInFlight).as("calls the kill cut off in flight").isPositive();
    int toldDoneBeforeKill = LEDGER.toldDone.size();

    node.start();
    app.eventually("the app to serve again", Duration.ofSeconds(90), node::ready);

    // ---- what the kill left ----
    assertThat(app.db().number("SELECT count(*) FROM pipeline_jobs WHERE " + MINE)).isEqualTo(JOBS);
    assertThat(rows("SELECT id::text, status FROM pipeline_jobs WHERE " + MINE
        + " AND status NOT IN ('queued', 'claimed', 'running', 'done')")).as("jobs neither done, queued nor leased")
        .isEmpty();
    checkDoneJobsHaveTheirVersion();
    Map<String, String> doneInDb = doneVersions();
    assertThat(differences(LEDGER.toldDone, doneInDb))
        .as("jobs a worker was told done that are not done with the version"
            + " it was told")
        .isEmpty();
    Set<String> completeAsked = new HashSet<>(LEDGER.toldDone.keySet());
    Set<String> openClaims = new HashSet<>();
    for (Worker w : workers) {
      if (w.jobId != null) {
        openClaims.add(w.jobId);
        if (w.completeCut) {
          completeAsked.add(w.jobId);
        }
      }
    }
    assertThat(doneInDb.keySet().stream().filter(id -> !completeAsked.contains(id)).toList())
        .as("jobs done that no worker asked to complete").isEmpty();
    Set<String> leased = new HashSet<>(strings("SELECT id::text FROM pipeline_jobs WHERE " + MINE
        + " AND status IN ('claimed', 'running')"));
    Set<String> leasedUnheard = new HashSet<>(leased);
    leasedUnheard.removeAll(openClaims);
    int cutNext = LEDGER.cut.get(Step.NEXT).get();
    assertThat(leasedUnheard.size())
        .as("leases nobody was told of (%s), at most one per jobs/next without an answer (%d)",
            leasedUnheard, cutNext)
        .isLessThanOrEqualTo(cutNext);
    for (Worker w : workers) {
      if (w.jobId != null) {
        String status = app.db().text("SELECT status FROM pipeline_jobs WHERE id = '" + w.jobId + "'");
        assertThat(status).as("%s held %s, cut at %s", w.name, w.jobId, w.step)
            .isIn(w.completeCut ? List.of("claimed", "running", "done") : List.of("claimed", "running"));
      }
    }
    System.out.printf("kill: %d jobs told done before it, %d done in the database; calls cut in flight by step %s;"
        + " %d leases nobody heard of%n", toldDoneBeforeKill, doneInDb.size(), LEDGER.cutInFlight,
        leasedUnheard.size());

    // ---- the workers carry on: the cut call again while the claim holds, then drain ----
    List<Outcome> afterRestart = outcomes(workers.stream().map(w -> w.run(expectedInput)).toList());
    assertThat(LEDGER.unexpected).isEmpty();
    assertThat(afterRestart).as("every worker drained its kinds").containsOnly(Outcome.IDLE);

    // the leases nobody heard of: expired (time moved in the database), the sweeper takes them back
    Set<String> orphans = new HashSet<>(strings("SELECT id::text FROM pipeline_jobs WHERE " + MINE
        + " AND status IN ('claimed', 'running')"));
    assertThat(orphans).as("only the leases nobody heard of are left").isEqualTo(leasedUnheard);
    app.db().execute("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '10 minutes' WHERE " + MINE
        + " AND status IN ('claimed', 'running')");
    app.eventually("the sweeper to take the expired leases back", Duration.ofSeconds(60), () -> app.db().number(
        "SELECT count(*) FROM pipeline_jobs WHERE " + MINE + " AND status IN ('claimed', 'running')") == 0);
    // their retry waits out the back-off (30 s after a first attempt): move that time too
    app.db().execute(
        "UPDATE pipeline_jobs SET run_after = now() - interval '1 second' WHERE " + MINE + " AND status = 'queued'");
    app.eventually("every job done", Duration.ofSeconds(120), () -> {
      List<Outcome> round = outcomes(workers.stream().map(w -> w.run(expectedInput)).toList());
      assertThat(LEDGER.unexpected).isEmpty();
      assertThat(round).containsOnly(Outcome.IDLE);
      return app.db().number("SELECT count(*) FROM pipeline_jobs WHERE " + MINE + " AND status <> 'done'") == 0;
    });

    // ---- every job done exactly once ----
    assertThat(
        rows("SELECT status, attempts, count(*) FROM pipeline_jobs WHERE " + MINE + " GROUP BY status, attempts"))
        .as("status, attempts, jobs: a second attempt only for the leases nobody heard of")
        .containsExactlyInAnyOrderElementsOf(
            orphans.isEmpty() ? List.of(List.of("done", "1", Integer.toString(JOBS - orphans.size())))
                : List.of(List.of("done", "1", Integer.toString(JOBS - orphans.size())),
                    List.of("done", "2", Integer.toString(orphans.size()))));
    checkDoneJobsHaveTheirVersion();
    Map<String, String> told = new HashMap<>(LEDGER.toldDone);
    assertThat(LEDGER.doneUnheard.keySet()).as("told done and done unheard overlap")
        .doesNotContainAnyElementsOf(told.keySet());
    told.putAll(LEDGER.doneUnheard);
    assertThat(told).hasSize(JOBS);
    assertThat(differences(told, doneVersions()))
        .as("jobs whose version is not the one its worker sent last and was told of")
        .isEmpty();
    assertThat(LEDGER.duplicateClaims).as("jobs handed out twice").isEmpty();
    assertThat(expectedInput.keySet().stream().filter(id -> !LEDGER.answeredClaims.contains(id)).toList())
        .as("jobs never handed out").isEmpty();
    try (Stream<Path> tmp = Files.list(app.dataDir().resolve("media").resolve("tmp"))) {
      assertThat(tmp.toList()).as("temporary files left").isEmpty();
    }
    System.out.printf(
        "after the restart: %d completes repeated that had gone through (409 JOB_TERMINAL), %d leases taken"
            + " back by the sweeper, %d answers 503%n",
        LEDGER.doneUnheard.size(), orphans.size(), LEDGER.unavailable.get());
  }

  // ---- checks ----

  /**
   * Every done job has exactly one processed version, the one it points at, for its own file, kind
   * and attempt, stored with the bytes its worker sent; and no version belongs to a job that is not done.
   */
  private static void checkDoneJobsHaveTheirVersion() {
    assertThat(
        rows("SELECT j.id::text, j.version_id::text FROM pipeline_jobs j WHERE j." + MINE + " AND j.status = 'done' "
            + "AND (j.version_id IS NULL OR (SELECT count(*) FROM processed_versions v WHERE v.job_id = j.id) <> 1 "
            + "OR NOT EXISTS (SELECT 1 FROM processed_versions v WHERE v.id = j.version_id AND v.job_id = j.id "
            + "  AND v.file_id = j.file_id AND v.kind = j.kind AND v.attempt = j.attempts))"))
        .as("done jobs without exactly one version of their own").isEmpty();
    assertThat(rows("SELECT v.id::text, j.status FROM processed_versions v JOIN pipeline_jobs j ON j.id = v.job_id "
        + "WHERE j." + MINE + " AND j.status <> 'done'")).as("versions of jobs that are not done").isEmpty();
    List<String> wrong = new ArrayList<>();
    for (List<String> row : rows("SELECT j.id::text, v.storage_key, v.size::text FROM pipeline_jobs j "
        + "JOIN processed_versions v ON v.id = j.version_id WHERE j." + MINE + " AND j.status = 'done'")) {
      String expected = output(row.get(0));
      Path file = app.dataDir().resolve("media").resolve(row.get(1));
      String stored;
      try {
        stored = Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        stored = "(missing: " + e + ")";
      }
      if (!expected.equals(stored) || Long.parseLong(row.get(2)) != expected.length()) {
        wrong.add(row.get(0) + ": " + stored);
      }
    }
    assertThat(wrong).as("done jobs whose stored version is missing or not what their worker sent").isEmpty();
  }

  /** The entries of {@code expected} that {@code actual} does not hold, as "job: expected, actual". */
  private static List<String> differences(Map<String, String> expected, Map<String, String> actual) {
    return expected.entrySet().stream().filter(e -> !e.getValue().equals(actual.get(e.getKey())))
        .map(e -> e.getKey() + ": " + e.getValue() + ", in the database " + (actual.containsKey(e.getKey())
            ? actual.get(e.getKey())
            : app.db().text("SELECT status FROM pipeline_jobs WHERE id = '" + e.getKey() + "'")))
        .toList();
  }

  /** Done job id -> its version id. */
  private static Map<String, String> doneVersions() {
    return rows("SELECT id::text, version_id::text FROM pipeline_jobs WHERE " + MINE + " AND status = 'done'").stream()
        .collect(Collectors.toMap(r -> r.get(0), r -> r.get(1)));
  }

  /** One job per file and kind, on file rows that point at the uploaded sources; job id -> its input. */
  private static Map<String, String> queueJobs() {
    app.db().execute(PipelineHarness.queueJobsSql(NS, FILES, KINDS));
    Map<String, String> expected = new HashMap<>();
    for (List<String> row : rows(
        "SELECT j.id::text, f.storage_key FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id "
            + "WHERE j." + MINE + " AND j.status = 'queued'")) {
      expected.put(row.get(0), CONTENT.get(row.get(1)));
    }
    assertThat(expected).hasSize(JOBS).doesNotContainValue(null);
    return expected;
  }

  static List<List<String>> rows(String query) {
    return app.db().rows(query, ResultSet::getString);
  }

  static List<String> strings(String query) {
    return rows(query).stream().map(r -> r.get(0)).toList();
  }

  /** Waits for every run; a run that failed (a broken assumption in the worker itself) fails the test. */
  private static List<Outcome> outcomes(List<Future<Outcome>> runs) {
    try {
      return Future.all(runs).await(3, TimeUnit.MINUTES).list();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the workers did not end within 3 minutes", e);
    }
  }

  // ---- the workers ----

  /** How a worker's run ended: the queue had nothing for it, or its connection to the app broke. */
  enum Outcome {
    IDLE,
    CUT
  }

  /** The call a worker makes next. */
  enum Step {
    NEXT,
    INPUT,
    OUTPUT,
    COMPLETE
  }

  /** What all the workers saw. */
  static final class Ledger {
    final AtomicInteger inFlight = new AtomicInteger();
    /** When the kill was sent (System.nanoTime), 0 before. */
    volatile long killedAt;
    /** When the kill had ended the process (0 until then): calls started before it and cut were in flight. */
    volatile long deadAt;
    /** When each call that never got an answer started, by step (counted against deadAt once the runs end). */
    final Map<Step, Queue<Long>> cutStarts = new EnumMap<>(Step.class);
    /** Calls in flight when the process died (sent before it was gone, never answered), by step. */
    final Map<Step, AtomicInteger> cutInFlight = new EnumMap<>(Step.class);
    /** Calls that never got an answer, sent before or after the kill (the process takes a moment to die), by step. */
    final Map<Step, AtomicInteger> cut = new EnumMap<>(Step.class);
    /** Job id -> the version id a 200 from complete named. */
    final Map<String, String> toldDone = new ConcurrentHashMap<>();
    /** Job id -> the version uploaded, for a complete that went through but whose answer the kill cut off. */
    final Map<String, String> doneUnheard = new ConcurrentHashMap<>();
    /** Every job id jobs/next answered with, and those it answered twice. */
    final Set<String> answeredClaims = ConcurrentHashMap.newKeySet();
    final Set<String> duplicateClaims = ConcurrentHashMap.newKeySet();
    final List<String> unexpected = new CopyOnWriteArrayList<>();
    /** 503 answers, each followed by the same call after its Retry-After. */
    final AtomicInteger unavailable = new AtomicInteger();

    Ledger() {
      for (Step s : Step.values()) {
        cutInFlight.put(s, new AtomicInteger());
        cut.put(s, new AtomicInteger());
        cutStarts.put(s, new ConcurrentLinkedQueue<>());
      }
    }

    /** Once every run has ended: the cut calls that started before the process was gone. */
    void countCutInFlight() {
      cutStarts.forEach((s, starts) -> cutInFlight.get(s).set((int) starts.stream().filter(t -> t < deadAt).count()));
    }
  }

  static final Ledger LEDGER = new Ledger();

  /**
   * A worker of the HTTP contract on an event-loop context of its own, calling from its own loopback
   * address. A run goes on from the step it stopped at: after a broken connection it repeats the cut
   * call, as the contract tells a worker to while its claim holds. Any answer the contract does not
   * allow here is recorded in the ledger and ends the run.
   */
  static final class Worker {
    static final String BASE = "/api/v1/pipeline";
    final String name;
    final List<String> kinds;
    final Context context = vertx.getOrCreateContext();
    final WebClient web;
    final String token;
    Map<String, String> expectedInput;
    // the claim in hand (on this worker's context; read by the test thread between runs)
    Step step = Step.NEXT;
    String jobId;
    String claimToken;
    String inputUrl;
    String versionId;
    /** Whether a complete for the claim in hand was sent and its answer lost. */
    boolean completeCut;

    Worker(String localAddress, String name, List<String> kinds) {
      this.name = name;
      this.kinds = kinds;
      web = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(node.httpPort)
          .setLocalAddress(localAddress));
      HttpResponse<Buffer> r =
          web.post(BASE + "/workers/register").putHeader("X-Worker-Bootstrap-Token", ClusterNodes.BOOTSTRAP)
              .sendJsonObject(
                  new JsonObject().put("manifest", new JsonObject().put("name", name).put("version", "1.0.0")
                      .put("kinds", new JsonArray(kinds)).put("contract", 1)))
              .await();
      assertThat(r.statusCode()).as("register %s: %s", name, r.bodyAsString()).isEqualTo(201);
      token = r.bodyAsJsonObject().getString("token");
    }

    Future<Outcome> run(Map<String, String> expectedInput) {
      this.expectedInput = expectedInput;
      Promise<Outcome> done = Promise.promise();
      context.runOnContext(v -> loop().onComplete(done));
      return done.future();
    }

    private Future<Outcome> loop() {
      return call().compose(next -> next == null ? loop() : Future.succeededFuture(next));
    }

    /** The call of the current step; answers null to go on, or how the run ends. */
    private Future<Outcome> call() {
      Step now = step;
      long started = System.nanoTime();
      LEDGER.inFlight.incrementAndGet();
      Future<HttpResponse<Buffer>> sent = switch (now) {
        case NEXT -> web.post(BASE + "/jobs/next").putHeader("X-Worker-Token", token).timeout(30_000).send();
        case INPUT -> web.get(inputUrl).putHeader("X-Worker-Token", token).putHeader("X-Claim-Token", claimToken)
            .timeout(30_000).send();
        case OUTPUT -> web.put(BASE + "/jobs/" + jobId + "/output").putHeader("X-Worker-Token", token)
            .putHeader("X-Claim-Token", claimToken).putHeader("Content-Type", "text/plain")
            .putHeader("X-Output-Ext", "txt")
            .timeout(30_000).sendBuffer(Buffer.buffer(output(jobId), StandardCharsets.UTF_8.name()));
        case COMPLETE -> web.post(BASE + "/jobs/" + jobId + "/complete").putHeader("X-Worker-Token", token)
            .putHeader("X-Claim-Token", claimToken).timeout(30_000).send();
      };
      return sent.transform(ar -> {
        LEDGER.inFlight.decrementAndGet();
        if (ar.failed()) {
          long killedAt = LEDGER.killedAt;
          if (killedAt == 0) {
            return unexpected(now + " failed before the kill: " + ar.cause());
          }
          LEDGER.cutStarts.get(now).add(started);
          LEDGER.cut.get(now).incrementAndGet();
          if (now == Step.COMPLETE) {
            completeCut = true;
          }
          return Future.succeededFuture(Outcome.CUT); // the claim in hand, if any, stays for the next run
        }
        return answered(now, ar.result());
      });
    }

    private Future<Outcome> answered(Step now, HttpResponse<Buffer> r) {
      String what = now + (jobId == null ? "" : " of " + jobId) + ": " + r.statusCode() + " " + r.bodyAsString();
      if (r.statusCode() == 503 && LEDGER.unavailable.incrementAndGet() <= 100) {
        // the app is not quite back (the contract's 503s carry Retry-After): the same call again after it
        String after = r.getHeader("Retry-After");
        return vertx.timer(after == null ? 1 : Long.parseLong(after), TimeUnit.SECONDS).map(v -> (Outcome) null);
      }
      switch (now) {
        case NEXT -> {
          if (r.statusCode() == 204) {
            return Future.succeededFuture(Outcome.IDLE);
          }
          if (r.statusCode() != 200) {
            return unexpected(what);
          }
          JsonObject job = r.bodyAsJsonObject().getJsonObject("job");
          jobId = job.getString("id");
          claimToken = job.getString("claimToken");
          inputUrl = job.getJsonObject("input").getString("url");
          versionId = null;
          completeCut = false;
          if (!LEDGER.answeredClaims.add(jobId)) {
            LEDGER.duplicateClaims.add(jobId);
          }
          if (!kinds.contains(job.getString("kind")) || !expectedInput.containsKey(jobId)) {
            return unexpected("was handed " + jobId + " of kind " + job.getString("kind"));
          }
          step = Step.INPUT;
        }
        case INPUT -> {
          if (r.statusCode() != 200
              || !expectedInput.get(jobId).equals(r.bodyAsString(StandardCharsets.UTF_8.name()))) {
            return unexpected(what);
          }
          step = Step.OUTPUT;
        }
        case OUTPUT -> {
          if (r.statusCode() != 200) {
            return unexpected(what);
          }
          versionId = r.bodyAsJsonObject().getString("versionId");
          step = Step.COMPLETE;
        }
        case COMPLETE -> {
          if (r.statusCode() == 200 && versionId.equals(r.bodyAsJsonObject().getString("versionId"))) {
            LEDGER.toldDone.put(jobId, versionId);
          } else if (r.statusCode() == 409 && completeCut
              && "JOB_TERMINAL".equals(r.bodyAsJsonObject().getString("code"))) {
            // an earlier complete of this claim went through; the kill took its answer
            LEDGER.doneUnheard.put(jobId, versionId);
          } else {
            return unexpected(what);
          }
          jobId = null;
          claimToken = null;
          step = Step.NEXT;
        }
        default -> throw new IllegalStateException();
      }
      return Future.succeededFuture(null);
    }

    private Future<Outcome> unexpected(String what) {
      LEDGER.unexpected.add(name + " " + what);
      return Future.failedFuture(new AssertionError(name + " " + what));
    }
  }
}
