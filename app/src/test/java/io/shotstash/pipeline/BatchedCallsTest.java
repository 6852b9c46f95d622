package io.shotstash.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.ApiError;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.media.LocalStorage;
import io.shotstash.media.Storage;
import io.shotstash.testing.TestDatabase;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The batched worker calls ({@link Claims}, {@link JobCalls}) on a real PostgreSQL, without HTTP:
 * calls that wait together go out as one statement, and each caller still hears its own answer.
 * A batch is made deterministic by holding a row lock the batch in flight needs, so the calls
 * sent meanwhile collect behind it and go out together when the lock goes.
 */
class BatchedCallsTest {
  static final String KIND = "test/batch";

  @TempDir
  Path media;
  TestDatabase db;
  Vertx vertx;
  Context loop;
  Database.QueuePools pools;
  Storage storage;
  Claims claims;
  JobCalls calls;
  UUID worker;

  @BeforeEach
  void start() throws Exception {
    db = TestDatabase.create();
    db.migrate();
    vertx = Vertx.vertx();
    loop = vertx.getOrCreateContext();
    Config config = Config.load(Map.of("DATABASE_URL", db.databaseUrl()));
    pools = Database.queuePools(vertx, config, 4);
    storage = new LocalStorage(vertx, media);
    JobEvents events = new JobEvents(vertx, storage);
    claims = new Claims(pools.asyncCommits(), pools.durable(), new QueueSignal(), events);
    calls = new JobCalls(pools.durable(), pools.asyncCommits(), events);
    worker = UUID.randomUUID();
    db.execute("INSERT INTO pipeline_kinds (name) VALUES ('" + KIND + "')");
    db.execute("INSERT INTO pipeline_workers (id, name, token_hash, version, kinds, contract) VALUES ('" + worker
        + "', 'batch-worker', '\\x01', '1.0.0', ARRAY['" + KIND + "'], '1')");
  }

  @AfterEach
  void stop() throws Exception {
    pools.close().await(10, TimeUnit.SECONDS);
    vertx.close().await(10, TimeUnit.SECONDS);
    db.close();
  }

  /** Runs on the one event loop the batchers belong to. */
  <T> Future<T> onLoop(Supplier<Future<T>> call) {
    Promise<T> p = Promise.promise();
    loop.runOnContext(v -> call.get().onComplete(p));
    return p.future();
  }

  record Claimed(UUID job, UUID file, String token) {
    JsonObject call(UUID worker) {
      return new JsonObject().put("jobId", job.toString()).put("workerId", worker.toString()).put("claimToken", token);
    }
  }

  /** Queues {@code n} jobs (one file each) and claims them all, together. */
  List<Claimed> claim(int n) throws Exception {
    db.execute("INSERT INTO media_files (id, name, mime_type, size, storage_key) SELECT gen_random_uuid(), 'b-' || g, "
        + "'text/plain', 1, 'originals/' || gen_random_uuid() FROM generate_series(1, " + n + ") g");
    db.execute(
        "INSERT INTO pipeline_jobs (id, file_id, kind) SELECT gen_random_uuid(), id, '" + KIND + "' FROM media_files "
            + "WHERE NOT EXISTS (SELECT 1 FROM pipeline_jobs j WHERE j.file_id = media_files.id)");
    List<JsonObject> replies = onLoop(() -> {
      List<Future<JsonObject>> all = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        // the odd callers are in-process workers: they are also told where the input is stored
        all.add(claims.next(new Claims.Next(worker, List.of(KIND), i % 2 == 1)));
      }
      return Future.all(all).map(f -> f.<JsonObject>list());
    }).await(10, TimeUnit.SECONDS);
    List<Claimed> out = new ArrayList<>();
    for (int i = 0; i < replies.size(); i++) {
      JsonObject r = replies.get(i);
      JsonObject job = r.getJsonObject("job");
      assertThat(job).as("every caller got a job").isNotNull();
      UUID id = UUID.fromString(job.getString("id"));
      assertThat(r.getString("storageKey")).as("the input's storage key, for in-process callers only")
          .isEqualTo(
              i % 2 == 1 ? db.text("SELECT f.storage_key FROM pipeline_jobs j JOIN media_files f ON f.id = j.file_id "
                  + "WHERE j.id = '" + id + "'") : null);
      out.add(new Claimed(id, UUID.fromString(db.text("SELECT file_id FROM pipeline_jobs WHERE id = '" + id + "'")),
          job.getString("claimToken")));
    }
    assertThat(out.stream().map(Claimed::job).distinct()).as("no job handed twice").hasSize(n);
    return out;
  }

  /** Stores bytes under a fresh version key and records them as the claim's output. */
  String upload(Claimed c) throws Exception {
    String version = UUID.randomUUID().toString();
    String key = Storage.versionKey(version, "txt");
    Path file = media.resolve(key);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "ok\n");
    onLoop(() -> calls.recordOutput(JobCall.Output.of(c.call(worker).put("versionId", version).put("storageKey", key)
        .put("mimeType", "text/plain").put("ext", "txt").put("size", 3L)))).await(10, TimeUnit.SECONDS);
    return key;
  }

  static ApiError refusal(Future<JsonObject> f) {
    assertThat(f.failed()).as("refused").isTrue();
    return ApiError.from(f.cause());
  }

  /** Waits until a statement that mentions {@code text} is waiting on a lock in PostgreSQL. */
  void awaitWaitingOnLock(String text) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (db.number("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        + "AND wait_event_type = 'Lock' AND query LIKE '%" + text + "%'") == 0) {
      assertThat(System.nanoTime()).as("a statement with %s waits on the lock", text).isLessThan(deadline);
      Thread.sleep(10);
    }
  }

  /** The answers of a batch held behind another: {@code first}'s, then one per call of {@code together}. */
  record Held(Future<JsonObject> first, List<Future<JsonObject>> batch) {}

  /**
   * Sends {@code blocker}'s complete while a test connection locks its file, so that statement waits
   * in PostgreSQL; sends the completes of {@code together} meanwhile (they collect behind it, one
   * batch but for a job named twice), checks how many wait, then lets the lock go and waits for every
   * answer.
   */
  Held completeBehindALock(Claimed blocker, List<Claimed> together, int expectWaiting) throws Exception {
    Future<JsonObject> first;
    List<Future<JsonObject>> batch = new ArrayList<>();
    try (Connection lock = Database.connect(db.url()); Statement s = lock.createStatement()) {
      lock.setAutoCommit(false);
      s.execute("SELECT 1 FROM media_files WHERE id = '" + blocker.file() + "' FOR UPDATE");
      first = onLoop(() -> calls.complete(JobCall.Complete.of(blocker.call(worker))));
      awaitWaitingOnLock("pipeline_complete_batch");
      onLoop(() -> {
        for (Claimed x : together) {
          batch.add(calls.complete(JobCall.Complete.of(x.call(worker))));
        }
        return Future.succeededFuture();
      }).await(5, TimeUnit.SECONDS);
      assertThat(onLoop(() -> Future.succeededFuture(calls.completesWaiting())).await())
          .as("the completes wait behind the one in flight").isEqualTo(expectWaiting);
      lock.rollback();
    }
    first.otherwiseEmpty().await(10, TimeUnit.SECONDS);
    Future.join(batch).otherwiseEmpty().await(10, TimeUnit.SECONDS);
    return new Held(first, batch);
  }

  @Test
  void aBatchMixingAcceptedAndRefusedCallsGivesEachCallerItsOwnAnswer() throws Exception {
    List<Claimed> c = claim(6);
    Claimed blocker = c.get(0);
    Claimed good = c.get(1);
    Claimed stale = new Claimed(c.get(2).job(), c.get(2).file(), "not-the-token");
    Claimed cancelled = c.get(3);
    Claimed trashed = c.get(4);
    Claimed missing = c.get(5);
    upload(blocker);
    upload(good);
    upload(c.get(2));
    upload(cancelled);
    String trashedKey = upload(trashed);
    db.execute(
        "UPDATE pipeline_jobs SET status = 'cancelled', finished_at = now() WHERE id = '" + cancelled.job() + "'");
    db.execute("UPDATE media_files SET trashed_at = now() WHERE id = '" + trashed.file() + "'");

    Held held = completeBehindALock(blocker, List.of(good, stale, cancelled, trashed, missing), 5);
    Future<JsonObject> first = held.first();
    List<Future<JsonObject>> batch = held.batch();

    assertThat(first.result().getString("status")).isEqualTo("done");
    assertThat(batch.get(0).result().getString("status")).isEqualTo("done");
    assertThat(refusal(batch.get(1)).code()).isEqualTo("CLAIM_STALE");
    assertThat(refusal(batch.get(2)).code()).isEqualTo("JOB_TERMINAL");
    assertThat(refusal(batch.get(3)).code()).isEqualTo("FILE_GONE");
    assertThat(refusal(batch.get(4)).code()).isEqualTo("OUTPUT_MISSING");
    assertThat(onLoop(() -> Future.succeededFuture(calls.completeBatches())).await()).as("two statements").isEqualTo(2);

    // what the database holds matches what each caller heard
    assertThat(
        db.text("SELECT string_agg(status, ',' ORDER BY status) FROM pipeline_jobs WHERE id IN ('" + blocker.job()
            + "', '" + good.job() + "')"))
        .isEqualTo("done,done");
    assertThat(db.number("SELECT count(*) FROM processed_versions")).isEqualTo(2);
    assertThat(db.text("SELECT status FROM pipeline_jobs WHERE id = '" + stale.job() + "'")).isEqualTo("claimed");
    assertThat(db.text("SELECT status FROM pipeline_jobs WHERE id = '" + missing.job() + "'")).isEqualTo("claimed");
    assertThat(db.text("SELECT output_storage_key FROM pipeline_jobs WHERE id = '" + trashed.job() + "'")).isNull();
    assertEventually(() -> !Files.exists(media.resolve(trashedKey)), "the dropped output is deleted");
  }

  @Test
  void aDatabaseErrorInTheMiddleOfABatchFailsEveryCallerOfItRetryablyAndTheNextBatchWorks() throws Exception {
    List<Claimed> c = claim(4);
    for (Claimed x : c) {
      upload(x);
    }
    Claimed blocker = c.get(0);
    Claimed poisoned = c.get(2);
    // a real error from PostgreSQL, raised by the second call of the batch
    db.execute("CREATE FUNCTION poison() RETURNS trigger AS $$ BEGIN IF NEW.id = '" + poisoned.job()
        + "' AND NEW.status = 'done' THEN RAISE EXCEPTION 'poisoned job'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql");
    db.execute("CREATE TRIGGER poison BEFORE UPDATE ON pipeline_jobs FOR EACH ROW EXECUTE FUNCTION poison()");

    Held held = completeBehindALock(blocker, c.subList(1, 4), 3);
    assertThat(held.first().result().getString("status")).isEqualTo("done");
    List<Future<JsonObject>> batch = held.batch();
    for (Future<JsonObject> f : batch) {
      ApiError e = refusal(f);
      assertThat(e.status()).isEqualTo(503);
      assertThat(e.code()).isEqualTo("database_unavailable");
      assertThat(e.retryAfterSeconds()).isEqualTo(5);
    }
    // the batch changed nothing: its jobs are still claimed, with their outputs, and no version exists
    assertThat(
        db.number("SELECT count(*) FROM pipeline_jobs WHERE status = 'claimed' AND output_version_id IS NOT NULL"))
        .isEqualTo(3);
    assertThat(db.number("SELECT count(*) FROM processed_versions")).isEqualTo(1);

    // the next batch works; once the fault is gone, the poisoned job completes too
    Claimed next = c.get(1);
    assertThat(onLoop(() -> calls.complete(JobCall.Complete.of(next.call(worker)))).await(10, TimeUnit.SECONDS)
        .getString("status")).isEqualTo("done");
    db.execute("DROP TRIGGER poison ON pipeline_jobs");
    for (Claimed x : c.subList(2, 4)) {
      assertThat(onLoop(() -> calls.complete(JobCall.Complete.of(x.call(worker)))).await(10, TimeUnit.SECONDS)
          .getString("status")).isEqualTo("done");
    }
    assertThat(db.number("SELECT count(*) FROM processed_versions")).isEqualTo(4);
  }

  @Test
  void concurrentClaimsGoOutTogetherAndEachCallerGetsItsOwnJobOrNone() throws Exception {
    db.execute("INSERT INTO pipeline_kinds (name) VALUES ('test/other')");
    UUID other = UUID.randomUUID();
    db.execute("INSERT INTO pipeline_workers (id, name, token_hash, version, kinds, contract) VALUES ('" + other
        + "', 'other-worker', '\\x02', '1.0.0', ARRAY['test/other'], '1')");
    db.execute("INSERT INTO media_files (id, name, mime_type, size, storage_key) SELECT gen_random_uuid(), 'c-' || g, "
        + "'text/plain', 1, 'originals/' || gen_random_uuid() FROM generate_series(1, 5) g");
    db.execute("INSERT INTO pipeline_jobs (id, file_id, kind, created_at) SELECT gen_random_uuid(), id, "
        + "CASE WHEN name IN ('c-1', 'c-2', 'c-3') THEN '" + KIND + "' ELSE 'test/other' END, "
        + "now() - make_interval(secs => 10 - substr(name, 3)::int) FROM media_files");

    // eight callers at once: five for KIND (three jobs), three for the other kind (two jobs)
    List<JsonObject> replies = onLoop(() -> {
      List<Future<JsonObject>> all = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        all.add(i % 2 == 0 || i == 7 ? claims.next(new Claims.Next(worker, List.of(KIND), false))
            : claims.next(new Claims.Next(other, List.of("test/other"), false)));
      }
      return Future.all(all).map(f -> f.<JsonObject>list());
    }).await(10, TimeUnit.SECONDS);

    List<String> mine = new ArrayList<>();
    List<String> theirs = new ArrayList<>();
    for (int i = 0; i < replies.size(); i++) {
      JsonObject job = replies.get(i).getJsonObject("job");
      boolean forKind = i % 2 == 0 || i == 7;
      if (job != null) {
        assertThat(job.getString("kind")).as("caller %d gets only its own kinds", i)
            .isEqualTo(forKind ? KIND : "test/other");
        (forKind ? mine : theirs).add(job.getString("id"));
      }
    }
    assertThat(mine).hasSize(3).doesNotHaveDuplicates();
    assertThat(theirs).hasSize(2).doesNotHaveDuplicates();
    // claim order kept: the first caller of a kind gets its oldest job
    assertThat(replies.get(0).getJsonObject("job").getJsonObject("input").getString("name")).isEqualTo("c-1");
    assertThat(
        db.number("SELECT count(*) FROM pipeline_jobs WHERE status = 'claimed' AND worker_id = '" + worker + "'"))
        .isEqualTo(3);
    assertThat(db.number("SELECT count(*) FROM pipeline_jobs WHERE status = 'claimed' AND worker_id = '" + other + "'"))
        .isEqualTo(2);
    // each claim token is the caller's own: the job accepts it
    JsonObject one = replies.get(0).getJsonObject("job");
    JsonObject input = onLoop(() -> calls.input(JobCall.of(new JsonObject().put("jobId", one.getString("id"))
        .put("workerId", worker.toString()).put("claimToken", one.getString("claimToken")))))
        .await(10, TimeUnit.SECONDS);
    assertThat(input.getString("name")).isEqualTo("c-1");
  }

  @Test
  void concurrentHeartbeatsGoOutTogetherAndEachWorkerHearsWhichOfItsJobsItLost() throws Exception {
    WorkerRegistry registry =
        new WorkerRegistry(vertx, pools.durable(), pools.asyncCommits(), new WorkerDirectory(), 90, 30);
    UUID first = UUID.randomUUID();
    UUID second = UUID.randomUUID();
    for (UUID w : List.of(first, second)) {
      db.execute("INSERT INTO pipeline_workers (id, name, token_hash, version, kinds, contract) VALUES ('" + w
          + "', 'hb-" + w + "', '\\x" + w.toString().replace("-", "") + "', '1.0.0', ARRAY['" + KIND + "'], '1')");
    }
    List<Claimed> c = claim(5);
    Claimed blocking = c.get(0); // held by `worker`, whose heartbeat waits behind a row lock
    Claimed firstHolds = c.get(1);
    Claimed cancelled = c.get(2);
    Claimed someoneElses = c.get(3); // held by `worker`, listed by `second`
    Claimed secondHolds = c.get(4);
    db.execute("UPDATE pipeline_jobs SET worker_id = '" + first + "' WHERE id IN ('" + firstHolds.job() + "', '"
        + cancelled.job() + "')");
    db.execute("UPDATE pipeline_jobs SET worker_id = '" + second + "' WHERE id = '" + secondHolds.job() + "'");
    db.execute(
        "UPDATE pipeline_jobs SET status = 'cancelled', finished_at = now() WHERE id = '" + cancelled.job() + "'");
    db.execute("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '1 minute'");

    Future<JsonObject> blocked;
    List<Future<JsonObject>> together = new ArrayList<>();
    try (Connection lock = Database.connect(db.url()); Statement s = lock.createStatement()) {
      lock.setAutoCommit(false);
      s.execute("SELECT 1 FROM pipeline_jobs WHERE id = '" + blocking.job() + "' FOR UPDATE");
      blocked = onLoop(() -> registry.heartbeat(heartbeat(worker, "1.0.0", List.of(KIND), blocking)));
      awaitWaitingOnLock("pipeline_heartbeat_batch");
      onLoop(() -> {
        together.add(registry.heartbeat(heartbeat(first, "1.1.0", List.of(KIND), firstHolds, cancelled)));
        together.add(
            registry.heartbeat(heartbeat(second, "2.0.0", List.of(KIND, "test/new-kind"), someoneElses, secondHolds)));
        together.add(registry.heartbeat(heartbeat(first, "1.2.0", List.of(KIND), firstHolds))); // the next batch: same worker
        return Future.succeededFuture();
      }).await(5, TimeUnit.SECONDS);
      assertThat(onLoop(() -> Future.succeededFuture(registry.heartbeatsWaiting())).await())
          .as("the heartbeats wait behind the one in flight").isEqualTo(3);
      lock.rollback();
    }
    assertThat(blocked.await(10, TimeUnit.SECONDS).getJsonArray("lostJobIds")).isEmpty();
    Future.join(together).await(10, TimeUnit.SECONDS);
    assertThat(together.get(0).result().getJsonArray("lostJobIds")).containsExactly(cancelled.job().toString());
    assertThat(together.get(1).result().getJsonArray("lostJobIds")).containsExactly(someoneElses.job().toString());
    assertThat(together.get(2).result().getJsonArray("lostJobIds")).isEmpty();
    assertThat(together.get(0).result().getInteger("contract")).isEqualTo(1);
    assertThat(onLoop(() -> Future.succeededFuture(registry.heartbeatBatches())).await())
        .as("the lone one, the two workers together, then the first worker's second heartbeat").isEqualTo(3);

    // what the database holds matches what each worker heard
    assertThat(db.text(
        "SELECT string_agg(id::text, ',' ORDER BY id) FROM pipeline_jobs WHERE heartbeat_at > now() - interval '30 seconds'"))
        .as("the leases that moved").isEqualTo(List.of(blocking.job(), firstHolds.job(), secondHolds.job()).stream()
            .map(UUID::toString).sorted().reduce((a, b) -> a + "," + b).orElseThrow());
    assertThat(db.text("SELECT version FROM pipeline_workers WHERE id = '" + first + "'")).isEqualTo("1.2.0");
    assertThat(db.text("SELECT array_to_string(kinds, ',') FROM pipeline_workers WHERE id = '" + second + "'"))
        .isEqualTo(KIND + ",test/new-kind");
    assertThat(db.number("SELECT count(*) FROM pipeline_kinds WHERE name = 'test/new-kind'")).isEqualTo(1);
  }

  static JsonObject heartbeat(UUID worker, String version, List<String> kinds, Claimed... active) {
    return new JsonObject().put("workerId", worker.toString())
        .put("manifest", new io.shotstash.pipeline.contract.Manifest("hb", version, kinds, "1").toJson())
        .put("activeJobIds",
            new io.vertx.core.json.JsonArray(java.util.Arrays.stream(active).map(a -> a.job().toString()).toList()))
        .put("previousKinds", new io.vertx.core.json.JsonArray(kinds));
  }

  @Test
  void aJobCompletedTwiceAtOnceIsDoneOnceAndTheSecondCallHearsJobTerminal() throws Exception {
    List<Claimed> c = claim(2);
    Claimed blocker = c.get(0);
    Claimed twice = c.get(1);
    upload(blocker);
    upload(twice);
    List<Future<JsonObject>> both = completeBehindALock(blocker, List.of(twice, twice), 2).batch();
    assertThat(both.get(0).result().getString("status")).isEqualTo("done");
    assertThat(refusal(both.get(1)).code()).isEqualTo("JOB_TERMINAL");
    assertThat(db.number("SELECT count(*) FROM processed_versions WHERE job_id = '" + twice.job() + "'")).isEqualTo(1);
  }

  @Test
  void aCompleteThatBringsItsOutputRecordsItAndCompletesInOneStatement() throws Exception {
    List<Claimed> c = claim(3);
    Claimed plain = c.get(0);
    Claimed stale = new Claimed(c.get(1).job(), c.get(1).file(), "not-the-token");
    Claimed replacing = c.get(2);
    String replaced = upload(replacing);
    List<String> keys = new ArrayList<>();
    List<Future<JsonObject>> answers = new ArrayList<>();
    for (Claimed x : List.of(plain, stale, replacing)) {
      String version = UUID.randomUUID().toString();
      String key = Storage.versionKey(version, "txt");
      Files.createDirectories(media.resolve(key).getParent());
      Files.writeString(media.resolve(key), "brought\n");
      keys.add(key);
      answers.add(onLoop(() -> calls.complete(JobCall.Complete.of(x.call(worker).put("versionId", version)
          .put("storageKey", key).put("mimeType", "text/plain").put("ext", "txt").put("size", 8L)))));
    }
    Future.join(answers).otherwiseEmpty().await(10, TimeUnit.SECONDS);
    assertThat(answers.get(0).result().getString("status")).isEqualTo("done");
    assertThat(refusal(answers.get(1)).code()).isEqualTo("CLAIM_STALE");
    assertThat(answers.get(2).result().getString("status")).isEqualTo("done");
    assertThat(db.text("SELECT storage_key FROM processed_versions WHERE job_id = '" + plain.job() + "'"))
        .isEqualTo(keys.get(0));
    assertThat(db.text("SELECT storage_key FROM processed_versions WHERE job_id = '" + replacing.job() + "'"))
        .isEqualTo(keys.get(2));
    assertThat(db.text("SELECT size::text FROM processed_versions WHERE job_id = '" + replacing.job() + "'"))
        .isEqualTo("8");
    // the refused call's bytes are gone before it hears the refusal; the replaced output goes too
    assertThat(media.resolve(keys.get(1))).doesNotExist();
    assertEventually(() -> !Files.exists(media.resolve(replaced)), "the replaced output is deleted");
    assertThat(media.resolve(keys.get(0))).exists();
  }

  static void assertEventually(Supplier<Boolean> condition, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.get()) {
      assertThat(System.nanoTime()).as(what).isLessThan(deadline);
      Thread.sleep(10);
    }
  }
}
