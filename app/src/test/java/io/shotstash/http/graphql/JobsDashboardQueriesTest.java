package io.shotstash.http.graphql;

import static io.shotstash.testing.GraphqlHttp.data;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.Folders;
import io.shotstash.testing.GraphqlHttp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The jobs dashboard's GraphQL fields (pipelineJobCounts, pipelineMinutes, pipelineJobs) and the
 * per-minute sampler, over real HTTP against the whole app and PostgreSQL: a known set of jobs is
 * run over the worker contract (two done, one failed, one left queued), then the counts, the
 * samples, the filters, the paging, the permissions and the refusals are checked exactly. Time
 * moves by writing finished_at, as LeaseTest writes heartbeat_at.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JobsDashboardQueriesTest extends WithSignedInApp {
  static final String BOOTSTRAP = "dashboard-test-bootstrap-token-0123456789";
  static final String KIND = "test/dash";
  static final String ROW = "job { id fileId kind status error } fileName fileTrashed workerName";

  static String editor;
  static String user;
  static ContractWorker worker;
  static String interviewJob;
  static String failedJob;
  static String notesJob;
  static String queuedJob;
  static String oddFile;

  @BeforeAll
  static void start() {
    startWithWorkers(BOOTSTRAP);
    editor = app.createAndLogin(admin, "eddie", "editor", "editor password 123");
    user = app.createAndLogin(admin, "uma", "user", "user password 123");
    String folder = Folders.create(app.client(), editor, "Dashboard");
    worker = new ContractWorker(app, BOOTSTRAP, ContractWorker.manifest("dash-worker", KIND));
    assertThat(worker.register().status()).isEqualTo(201);

    String interview = upload("interview.mp4", folder);
    oddFile = upload("a_b%.mp4", folder);
    String notes = upload("notes.mov", folder);
    String lookalike = upload("axbz.mp4", folder);
    interviewJob = enqueue(interview);
    failedJob = enqueue(oddFile);
    notesJob = enqueue(notes);
    // the claim hands out the oldest queued job first: interview, a_b%, notes
    worker.runToDone(interviewJob);
    worker.failNext(failedJob, "ffmpeg exited with 1");
    worker.runToDone(notesJob);
    queuedJob = enqueue(lookalike);
  }

  // ---- helpers ----

  static String upload(String name, String folder) {
    return app.uploadVideo(editor, folder, name);
  }

  static String enqueue(String fileId) {
    return GraphqlHttp.enqueueJob(app.client(), editor, fileId, KIND);
  }

  static JsonObject gql(String token, String query) {
    return gql(token, query, new JsonObject());
  }

  static JsonObject gql(String token, String query, JsonObject variables) {
    return GraphqlHttp.post(app.client(), token, query, variables).bodyAsJsonObject();
  }

  static JsonObject firstError(JsonObject answer) {
    assertThat(answer.getJsonArray("errors")).as(answer.encode()).isNotNull().isNotEmpty();
    return answer.getJsonArray("errors").getJsonObject(0);
  }

  static String code(JsonObject answer) {
    return firstError(answer).getJsonObject("extensions").getString("code");
  }

  /** pipelineJobs with these arguments (an empty object: none), as the editor. */
  static JsonObject jobs(JsonObject args) {
    return data(list(editor, args)).getJsonObject("pipelineJobs");
  }

  static JsonObject list(String token, JsonObject args) {
    return gql(token, "query($status: String, $kind: String, $worker: String, $fileName: String, $page: Int, "
        + "$perPage: Int) { pipelineJobs(status: $status, kind: $kind, worker: $worker, fileName: $fileName, "
        + "page: $page, perPage: $perPage) { page perPage total jobs { " + ROW + " } } }", args);
  }

  static List<String> ids(JsonObject page) {
    List<String> out = new ArrayList<>();
    JsonArray rows = page.getJsonArray("jobs");
    for (int i = 0; i < rows.size(); i++) {
      out.add(rows.getJsonObject(i).getJsonObject("job").getString("id"));
    }
    return out;
  }

  static Map<String, Long> counts(String token) {
    JsonArray counts = data(gql(token, "{ pipelineJobCounts { status count } }")).getJsonArray("pipelineJobCounts");
    Map<String, Long> out = new LinkedHashMap<>();
    for (int i = 0; i < counts.size(); i++) {
      out.put(counts.getJsonObject(i).getString("status"), counts.getJsonObject(i).getLong("count"));
    }
    return out;
  }

  static JsonArray minutes() {
    return data(gql(admin, "{ pipelineMinutes { minute finished failed queueDepth sampled current } }"))
        .getJsonArray("pipelineMinutes");
  }

  /** Waits (on the database's clock) until a minute has at least 5 s behind and 15 s ahead of it. */
  static void awayFromAMinuteBoundary() throws InterruptedException {
    while (true) {
      long second = app.db().number("SELECT extract(second FROM now())::int");
      if (second >= 5 && second <= 45) {
        return;
      }
      Thread.sleep(500);
    }
  }

  // ---- the tests ----

  @Test
  @Order(1)
  void theCountsByStatusAreExactAndForAdministratorsOnly() {
    assertThat(counts(admin)).containsExactly(Map.entry("queued", 1L), Map.entry("claimed", 0L),
        Map.entry("running", 0L), Map.entry("done", 2L), Map.entry("failed", 1L), Map.entry("cancelled", 0L));
    assertThat(code(gql(editor, "{ pipelineJobCounts { status count } }"))).isEqualTo("FORBIDDEN");
    assertThat(code(gql(user, "{ pipelineMinutes { minute } }"))).isEqualTo("FORBIDDEN");
    assertThat(code(gql(null, "{ pipelineJobCounts { status } }"))).isEqualTo("UNAUTHENTICATED");
  }

  @Test
  @Order(2)
  void theSamplerWritesThePreviousMinuteOnceAndPrunesOldRows() throws InterruptedException {
    awayFromAMinuteBoundary();
    // the jobs finished in the previous minute; a sample of it (0s, from the app's own timer) goes
    app.db().execute("UPDATE pipeline_jobs SET finished_at = date_trunc('minute', now()) - interval '50 seconds' "
        + "WHERE finished_at IS NOT NULL");
    app.db().execute("DELETE FROM pipeline_minutes");
    app.db().execute("INSERT INTO pipeline_minutes (minute, finished, failed, queue_depth) "
        + "VALUES (date_trunc('minute', now()) - interval '25 hours', 7, 7, 7), "
        + "(date_trunc('minute', now()) - interval '30 minutes', 4, 0, 9)");

    JsonObject first = app.vertx().eventBus().<JsonObject>request(Addresses.PIPELINE_MINUTES_SAMPLE, new JsonObject())
        .await().body();
    assertThat(first.getInteger("written")).isEqualTo(1);
    JsonObject again = app.vertx().eventBus().<JsonObject>request(Addresses.PIPELINE_MINUTES_SAMPLE, new JsonObject())
        .await().body();
    assertThat(again.getInteger("written")).as("a second node (or run) writes nothing").isZero();
    assertThat(app.db().number("SELECT count(*) FROM pipeline_minutes WHERE minute < now() - interval '24 hours'"))
        .as("rows older than a day are pruned").isZero();

    JsonArray minutes = minutes();
    assertThat(minutes.size()).isEqualTo(61);
    JsonObject previous = minutes.getJsonObject(59);
    assertThat(previous.getBoolean("sampled")).isTrue();
    assertThat(previous.getBoolean("current")).isFalse();
    assertThat(previous.getInteger("finished")).isEqualTo(2);
    assertThat(previous.getInteger("failed")).isEqualTo(1);
    assertThat(previous.getInteger("queueDepth")).isEqualTo(1);
    JsonObject halfAnHourAgo = minutes.getJsonObject(30);
    assertThat(halfAnHourAgo.getInteger("finished")).isEqualTo(4);
    assertThat(halfAnHourAgo.getInteger("queueDepth")).isEqualTo(9);
    JsonObject unsampled = minutes.getJsonObject(10);
    assertThat(unsampled.getBoolean("sampled")).as("a minute without a row is a gap").isFalse();
    assertThat(unsampled.getValue("finished")).isNull();
    assertThat(unsampled.getValue("queueDepth")).isNull();
    // the current minute so far: nothing finished in it (they were moved), one job open
    JsonObject current = minutes.getJsonObject(60);
    assertThat(current.getBoolean("current")).isTrue();
    assertThat(current.getBoolean("sampled")).isTrue();
    assertThat(current.getInteger("finished")).isZero();
    assertThat(current.getInteger("failed")).isZero();
    assertThat(current.getInteger("queueDepth")).isEqualTo(1);
    assertThat(minutes.getJsonObject(0).getString("minute")).isLessThan(minutes.getJsonObject(60).getString("minute"));
  }

  @Test
  @Order(3)
  void theTableListsNewestFirstWithFileAndWorkerNamesAndTheError() {
    JsonObject page = jobs(new JsonObject());
    assertThat(page.getLong("total")).isEqualTo(4);
    assertThat(page.getInteger("page")).isEqualTo(1);
    assertThat(page.getInteger("perPage")).isEqualTo(25);
    assertThat(ids(page)).containsExactly(queuedJob, notesJob, failedJob, interviewJob);
    JsonObject failed = page.getJsonArray("jobs").getJsonObject(2);
    assertThat(failed.getString("fileName")).isEqualTo("a_b%.mp4");
    assertThat(failed.getString("workerName")).isEqualTo("dash-worker");
    assertThat(failed.getBoolean("fileTrashed")).isFalse();
    assertThat(failed.getJsonObject("job").getString("error")).isEqualTo("ffmpeg exited with 1");
    assertThat(page.getJsonArray("jobs").getJsonObject(0).getValue("workerName")).as("queued: no holder").isNull();
    // any signed-in person may read it
    assertThat(ids(data(list(user, new JsonObject())).getJsonObject("pipelineJobs"))).hasSize(4);
    assertThat(code(list(null, new JsonObject()))).isEqualTo("UNAUTHENTICATED");
  }

  @Test
  @Order(4)
  void theFiltersAreExactForStatusKindAndWorkerAndLiteralForTheFileName() {
    assertThat(ids(jobs(new JsonObject().put("status", "failed")))).containsExactly(failedJob);
    assertThat(ids(jobs(new JsonObject().put("status", "done")))).containsExactly(notesJob, interviewJob);
    assertThat(ids(jobs(new JsonObject().put("kind", KIND)))).hasSize(4);
    assertThat(ids(jobs(new JsonObject().put("kind", "test/other")))).isEmpty();
    assertThat(ids(jobs(new JsonObject().put("worker", "dash-worker")))).containsExactly(notesJob, failedJob,
        interviewJob);
    assertThat(ids(jobs(new JsonObject().put("worker", "dash")))).as("a worker's name is matched whole").isEmpty();
    assertThat(ids(jobs(new JsonObject().put("fileName", "INTERVIEW")))).containsExactly(interviewJob);
    // _ and % are not wildcards: "a_b" does not match axbz.mp4, "%" only the name that has one
    assertThat(ids(jobs(new JsonObject().put("fileName", "a_b")))).containsExactly(failedJob);
    assertThat(ids(jobs(new JsonObject().put("fileName", "%")))).containsExactly(failedJob);
    assertThat(ids(jobs(new JsonObject().put("fileName", "\\")))).isEmpty();
    JsonObject both = jobs(new JsonObject().put("status", "done").put("fileName", ".mov").put("kind", KIND)
        .put("worker", "dash-worker"));
    assertThat(ids(both)).containsExactly(notesJob);
    assertThat(both.getLong("total")).isEqualTo(1);
    assertThat(ids(jobs(new JsonObject().put("status", "  ").put("fileName", ""))))
        .as("blank filters are no filters").hasSize(4);
  }

  @Test
  @Order(5)
  void pagesAreBoundedAndTotalCountsEveryPage() {
    JsonObject first = jobs(new JsonObject().put("perPage", 3));
    assertThat(ids(first)).containsExactly(queuedJob, notesJob, failedJob);
    assertThat(first.getLong("total")).isEqualTo(4);
    JsonObject second = jobs(new JsonObject().put("perPage", 3).put("page", 2));
    assertThat(ids(second)).containsExactly(interviewJob);
    assertThat(second.getLong("total")).isEqualTo(4);
    assertThat(ids(jobs(new JsonObject().put("perPage", 3).put("page", 3)))).isEmpty();
  }

  @Test
  @Order(6)
  void badFilterValuesAreBadUserInputNamingTheField() {
    JsonObject[] bad = {new JsonObject().put("status", "bogus"), new JsonObject().put("kind", "no kind"),
        new JsonObject().put("perPage", 0), new JsonObject().put("perPage", 101), new JsonObject().put("page", 0),
        new JsonObject().put("page", 5000).put("perPage", 100), new JsonObject().put("fileName", "x".repeat(256)),
        new JsonObject().put("worker", "tab\there")};
    String[] field = {"status", "kind", "perPage", "perPage", "page", "page", "fileName", "worker"};
    for (int i = 0; i < bad.length; i++) {
      JsonObject answer = list(editor, bad[i]);
      JsonObject error = firstError(answer);
      assertThat(error.getJsonObject("extensions").getString("code")).as(bad[i].encode()).isEqualTo("BAD_USER_INPUT");
      assertThat(error.getJsonObject("extensions").getJsonObject("fields").fieldNames()).as(bad[i].encode())
          .containsExactly(field[i]);
    }
  }

  @Test
  @Order(7)
  void retryMakesANewQueuedJobAtTheTopAndIsRefusedForAJobThatDidNotFail() {
    String retry = "mutation($id: ID!) { retryJob(id: $id) { id status } }";
    assertThat(code(gql(user, retry, new JsonObject().put("id", failedJob)))).isEqualTo("FORBIDDEN");
    assertThat(code(gql(editor, retry, new JsonObject().put("id", notesJob)))).isEqualTo("JOB_NOT_FAILED");
    JsonObject again = data(gql(editor, retry, new JsonObject().put("id", failedJob))).getJsonObject("retryJob");
    assertThat(again.getString("status")).isEqualTo("queued");
    assertThat(again.getString("id")).isNotEqualTo(failedJob);
    JsonObject page = jobs(new JsonObject().put("fileName", "a_b%"));
    assertThat(ids(page)).containsExactly(again.getString("id"), failedJob);
    assertThat(counts(admin)).containsEntry("queued", 2L).containsEntry("failed", 1L);
    assertThat(oddFile).isEqualTo(page.getJsonArray("jobs").getJsonObject(0).getJsonObject("job").getString("fileId"));
  }

  @Test
  @Order(8)
  void theCurrentMinuteCountsJobsAsTheyFinish() throws InterruptedException {
    awayFromAMinuteBoundary();
    ContractWorker.Answer claim = worker.next();
    assertThat(claim.status()).isEqualTo(200);
    String id = claim.job().getString("id");
    assertThat(worker.fail(id, claim.job().getString("claimToken"), "again", false).status()).isEqualTo(200);
    JsonObject current = minutes().getJsonObject(60);
    assertThat(current.getInteger("failed")).isEqualTo(1);
    assertThat(current.getInteger("queueDepth")).isEqualTo(1);
  }
}
