package io.shotstash.http.pages;

import static io.shotstash.testing.GraphqlHttp.data;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.GraphqlHttp;
import io.shotstash.testing.Teardown;
import io.shotstash.testing.TestApp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.Select;

/**
 * The jobs view in a real headless Chromium against the whole app: an editor queues a job on a seeded
 * file and watches its progress bar move as a test worker reports 10, 50 and 100 over the worker
 * contract (the page hears it through the jobUpdated subscription), then downloads the processed
 * version; an administrator sees the workers and the status figures and revokes a worker. The file
 * tree is the view's Files tab, the figures its Dashboard tab and the workers its Workers tab.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JobsViewBrowserTest extends WithSignedInApp {
  static final String BOOTSTRAP = "jobs-view-bootstrap-token-0123456789abcdef";
  static final String EDITOR_PASSWORD = "editor password 123";
  static final String PROXY = "shotstash/proxy-720p";
  static final byte[] OUTPUT = "a 720p proxy, as far as this test is concerned".getBytes(StandardCharsets.UTF_8);

  static String editor;
  static String videoId;
  static String notesId;
  static ContractWorker worker;
  static ContractWorker transcriber;
  static Browser browser;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOTSTRAP));
    editor = app.createAndLogin(admin, "eddie", "editor", EDITOR_PASSWORD);
    String shoot = gql(editor, "mutation { createFolder(name: \"Shoot day 1\") { id } }").getJsonObject("createFolder")
        .getString("id");
    String selects = gql(editor, "mutation($p: ID) { createFolder(name: \"Selects\", parentId: $p) { id } }",
        new JsonObject().put("p", shoot)).getJsonObject("createFolder").getString("id");
    videoId =
        upload("interview.mp4", "video/mp4", "not really a video, but bytes".getBytes(StandardCharsets.UTF_8), shoot);
    notesId = upload("notes.txt", "text/plain", "shot list".getBytes(StandardCharsets.UTF_8), selects);
    worker = new ContractWorker(app, BOOTSTRAP, ContractWorker.manifest("test-proxy", PROXY));
    assertThat(worker.register().status()).isEqualTo(201);
    transcriber = new ContractWorker(app, BOOTSTRAP, ContractWorker.manifest("old-transcriber", "acme/transcript"));
    assertThat(transcriber.register().status()).isEqualTo(201);
    browser = Browser.open(app);
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(browser);
  }

  // ---- seeding through the real APIs ----

  static JsonObject gql(String token, String query) {
    return gql(token, query, new JsonObject());
  }

  static JsonObject gql(String token, String query, JsonObject variables) {
    return data(GraphqlHttp.post(app.client(), token, query, variables).bodyAsJsonObject());
  }

  static String upload(String name, String type, byte[] bytes, String folderId) {
    return app.upload(editor, folderId, name, type, bytes);
  }

  // ---- page helpers ----

  /** An attribute of the job's row, read in one step (the page redraws a row on every update). */
  static String jobAttribute(String jobId, String name) {
    Object value = browser.script("const e = document.getElementById(arguments[0]);"
        + " return e ? e.getAttribute(arguments[1]) : null;", "job-" + jobId, name);
    return value == null ? null : value.toString();
  }

  /** Picks a kind in a file's form and presses Queue; answers the id of the job that appears. */
  static String queue(String fileId, String kind) {
    By option = By.cssSelector("#kind-" + fileId + " option[value='" + kind + "']");
    browser.until(d -> !d.findElements(option).isEmpty());
    new Select(browser.find(By.id("kind-" + fileId))).selectByValue(kind);
    browser.find(By.cssSelector("#file-" + fileId + " button.queue")).click();
    By jobs = By.cssSelector("#file-" + fileId + "-jobs li.job");
    browser.until(d -> !d.findElements(jobs).isEmpty());
    return browser.attribute(jobs, "data-job-id");
  }

  /** Waits until the page shows the job at this progress, in its bar too. */
  static void progressShown(String jobId, int progress) {
    browser.until(d -> String.valueOf(progress).equals(jobAttribute(jobId, "data-progress")));
    Object shown = browser.script("const e = document.getElementById(arguments[0]);"
        + " return [e.querySelector('progress').value, e.querySelector('.pct').textContent];", "job-" + jobId);
    assertThat(shown).isEqualTo(List.of(Long.valueOf(progress), progress + "%"));
  }

  // ---- the tests ----

  @Test
  @Order(1)
  void anonymousCallersAreSentToSignIn() {
    browser.go("/admin/jobs");
    browser.until(d -> browser.location().equals("/login?return=/admin/jobs"));
    assertThat(browser.driver.getTitle()).isEqualTo("Sign in · Shotstash");
  }

  @Test
  @Order(2)
  void anEditorQueuesAJobWatchesItsProgressAndDownloadsTheVersion() throws IOException {
    browser.signIn("eddie", EDITOR_PASSWORD, "/admin/jobs");
    browser.go("/admin/jobs?tab=files"); // the file tree is the Files tab
    browser.visible(By.id("file-" + videoId));
    browser.textIn(By.id("who"), "Signed in as Person eddie (@eddie, editor)");
    assertThat(browser.text(By.cssSelector("#file-" + videoId + " h3"))).isEqualTo("interview.mp4");
    assertThat(browser.headingOrderProblems()).as("heading order on the jobs view").isEmpty();
    assertThat(browser.text(By.id("file-" + videoId + "-jobs"))).contains("No jobs yet.");
    browser.textIn(By.id("live"), "Live updates: on");

    String jobId = queue(videoId, PROXY);
    browser.until(d -> "queued".equals(jobAttribute(jobId, "data-state")));
    browser.textIn(By.id("jobs-status"), "Queued shotstash/proxy-720p for interview.mp4.");

    // the test worker claims it and reports progress over the contract
    assertThat(worker.heartbeat().status()).isEqualTo(200);
    ContractWorker.Answer claim = worker.next();
    assertThat(claim.status()).as(claim.toString()).isEqualTo(200);
    assertThat(claim.job().getString("id")).isEqualTo(jobId);
    String claimToken = claim.job().getString("claimToken");
    browser.until(d -> "claimed".equals(jobAttribute(jobId, "data-state")));

    assertThat(worker.progress(jobId, claimToken, 10).status()).isEqualTo(200);
    progressShown(jobId, 10);
    assertThat(jobAttribute(jobId, "data-state")).isEqualTo("running");
    assertThat(worker.progress(jobId, claimToken, 50).status()).isEqualTo(200);
    progressShown(jobId, 50);
    browser.screenshot("jobs-view-progress");
    assertThat(worker.progress(jobId, claimToken, 100).status()).isEqualTo(200);
    progressShown(jobId, 100);
    long seqAt100 = Long.parseLong(jobAttribute(jobId, "data-seq"));

    ContractWorker.Answer output = worker.output(jobId, claimToken, "video/mp4", "mp4", Buffer.buffer(OUTPUT));
    assertThat(output.status()).as(output.toString()).isIn(200, 201, 204);
    ContractWorker.Answer complete = worker.complete(jobId, claimToken);
    assertThat(complete.status()).as(complete.toString()).isEqualTo(200);
    browser.until(d -> "done".equals(jobAttribute(jobId, "data-state")));
    long seqDone = Long.parseLong(jobAttribute(jobId, "data-seq"));
    assertThat(seqDone).isGreaterThan(seqAt100);

    // a view that arrives late (a lower seq) changes nothing on the page
    Object applied = browser.driver.executeAsyncScript("const done = arguments[arguments.length - 1];"
        + " import(document.querySelector('script[type=module]').src)"
        + ".then(page => done(page.applyJob({ id: arguments[0], fileId: arguments[1], kind: arguments[2],"
        + " status: 'running', state: 'running', progress: 50, attempts: 1, maxAttempts: 3, error: null,"
        + " seq: arguments[3], createdAt: new Date().toISOString(), updatedAt: new Date().toISOString(),"
        + " finishedAt: null, outputVersion: null })), e => done(String(e)));",
        jobId, videoId, PROXY, seqAt100);
    assertThat(applied).isEqualTo(false);
    assertThat(jobAttribute(jobId, "data-state")).isEqualTo("done");
    assertThat(jobAttribute(jobId, "data-seq")).isEqualTo(Long.toString(seqDone));

    // the processed version is listed with the file, from the server's answer
    By versionLink = By.cssSelector("#file-" + videoId + "-versions a");
    browser.until(d -> !d.findElements(versionLink).isEmpty());
    assertThat(browser.text(versionLink)).isEqualTo(PROXY + " (.mp4)");
    assertThat(browser.attribute(versionLink, "href")).matches(".*/media/p/[0-9a-f-]{36}");
    browser.textIn(By.id("jobs-status"), "shotstash/proxy-720p on interview.mp4: Done.");
    browser.screenshot("jobs-view");

    browser.find(versionLink).click();
    Path downloaded = browser.downloads.resolve("interview.shotstash-proxy-720p.mp4");
    browser.until(d -> Files.exists(downloaded) && sizeOf(downloaded) == OUTPUT.length);
    assertThat(Files.readAllBytes(downloaded)).isEqualTo(OUTPUT);
  }

  static long sizeOf(Path file) {
    try {
      return Files.size(file);
    } catch (IOException e) {
      return -1;
    }
  }

  @Test
  @Order(3)
  void anEditorCancelsAJob() {
    browser.go("/admin/jobs?tab=files");
    browser.visible(By.id("file-" + notesId));
    assertThat(transcriber.heartbeat().status()).isEqualTo(200);
    String jobId = queue(notesId, "acme/transcript");
    browser.find(By.cssSelector("#job-" + jobId + " button.cancel")).click();
    browser.until(d -> "cancelled".equals(jobAttribute(jobId, "data-state")));
    browser.textIn(By.id("job-" + jobId), "Cancelled");
    assertThat(browser.all(By.cssSelector("#job-" + jobId + " button.cancel"))).isEmpty();
    JsonObject seen =
        gql(editor, "query($id: ID!) { pipelineJob(id: $id) { status } }", new JsonObject().put("id", jobId));
    assertThat(seen.getJsonObject("pipelineJob").getString("status")).isEqualTo("cancelled");
    // an editor is not shown the pipeline's workers (nor the dashboard with its figures)
    assertThat(browser.find(By.id("tab-workers")).isDisplayed()).isFalse();
    assertThat(browser.find(By.id("tab-dashboard")).isDisplayed()).isFalse();
  }

  @Test
  @Order(4)
  void administratorsSeeTheWorkersAndFiguresAndRevokeAWorker() {
    browser.go("/admin/jobs");
    browser.signOut();
    browser.signIn("ada", TestApp.ADMIN_PASSWORD, "/admin/jobs");
    // the figures are the Dashboard tab's (one card each: "Queued jobs" was the same figure as "Jobs queued")
    browser.visible(By.id("panel-dashboard"));
    browser.textIn(By.id("figures"), "Live workers");
    assertThat(browser.text(By.id("figures"))).contains("Jobs queued", "Jobs done\n1", "Jobs cancelled\n1");
    browser.go("/admin/jobs?tab=workers"); // the workers are the Workers tab
    browser.textIn(By.id("workers"), "old-transcriber");
    assertThat(browser.text(By.id("panel-workers"))).contains("test-proxy", PROXY, "acme/transcript");

    String transcriberId = transcriber.workerId();
    browser.find(By.cssSelector("#worker-" + transcriberId + " button.revoke")).click();
    browser.visible(By.id("revoke-confirm"));
    assertThat(browser.text(By.id("revoke-name"))).isEqualTo("old-transcriber");
    browser.keys(Keys.ENTER); // the dialog puts the focus on its Revoke button
    browser.textIn(By.id("worker-" + transcriberId), "Revoked");
    assertThat(browser.all(By.cssSelector("#worker-" + transcriberId + " button.revoke"))).isEmpty();
    assertThat(transcriber.heartbeat().status()).as("the revoked worker's token stops working").isEqualTo(401);
    browser.screenshot("jobs-view-admin");
  }

  @Test
  @Order(5)
  void aKindWhoseWorkerWentAwaySaysWhenItWasSeenAndQueueingAKindAgainAsksFirst() {
    browser.go("/admin/jobs?tab=files");
    // the transcriber was revoked above: its kind was served once, so the page says when
    By transcript = By.cssSelector("#kind-" + notesId + " option[value='acme/transcript']");
    browser.until(d -> !d.findElements(transcript).isEmpty());
    assertThat(browser.text(transcript)).isEqualTo("acme/transcript (no live worker, last seen just now)");
    assertThat(browser.headingOrderProblems()).as("heading order, administrators' view").isEmpty();

    // interview.mp4 already has its proxy: queueing it again asks first, and Cancel queues nothing
    int jobsBefore = browser.all(By.cssSelector("#file-" + videoId + "-jobs li.job")).size();
    new Select(browser.find(By.id("kind-" + videoId))).selectByValue(PROXY);
    browser.find(By.cssSelector("#file-" + videoId + " button.queue")).click();
    browser.visible(By.id("again-dialog"));
    assertThat(browser.text(By.id("again-title"))).isEqualTo("Process interview.mp4 as " + PROXY + " again?");
    browser.find(By.cssSelector("#again-dialog [data-cancel]")).click();
    browser.textIn(By.id("jobs-status"), "Not queued: interview.mp4 keeps its " + PROXY + " version.");
    assertThat(browser.all(By.cssSelector("#file-" + videoId + "-jobs li.job"))).hasSize(jobsBefore);
    // asked again and confirmed: a new job
    browser.find(By.cssSelector("#file-" + videoId + " button.queue")).click();
    browser.visible(By.id("again-confirm")).click();
    browser.until(d -> d.findElements(By.cssSelector("#file-" + videoId + "-jobs li.job")).size() == jobsBefore + 1);
    browser.textIn(By.id("jobs-status"), "Queued " + PROXY + " for interview.mp4.");
  }

  @Test
  @Order(6)
  void theJobsViewWorksAt360PixelsWide() {
    browser.resize(360, 800);
    try {
      browser.go("/admin/jobs?tab=files");
      browser.visible(By.id("file-" + videoId));
      assertThat(browser.overflowsSideways()).as("nothing scrolls sideways at 360 px").isFalse();
      browser.go("/admin/jobs?tab=workers");
      browser.textIn(By.id("workers"), "test-proxy");
      assertThat(browser.overflowsSideways()).as("nothing scrolls sideways at 360 px").isFalse();
      browser.screenshot("jobs-view-360");
    } finally {
      browser.resize(1280, 900);
    }
  }
}
