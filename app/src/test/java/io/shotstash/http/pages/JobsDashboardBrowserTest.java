package io.shotstash.http.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.GraphqlHttp;
import io.shotstash.testing.Teardown;
import io.shotstash.testing.TestApp;
import io.shotstash.testing.WithSignedInApp;
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
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

/**
 * The jobs view's tabs in a real headless Chromium against the whole app, after jobs ran over the
 * worker contract (two done, one failed, one left queued): the Dashboard's figures and its two
 * charts with data, the Jobs table filtered by status, kind, worker and file name with the filters in
 * the address (Back and Forward), Retry on the failed job, the Workers tab with Revoke, and what an
 * editor is shown. Screenshots of each tab at 1366×900 and 390×844 go to target/screenshots/.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class JobsDashboardBrowserTest extends WithSignedInApp {
  static final String BOOTSTRAP = "jobs-dashboard-bootstrap-token-0123456789";
  static final String PROXY = "test/proxy";
  static final String TRANSCODE = "test/transcode";
  static final String ERROR = "ffmpeg exited with 1";
  static final int[][] SIZES = {{1366, 900}, {390, 844}};

  static String editor;
  static ContractWorker proxy;
  static ContractWorker transcoder;
  static String interviewProxy;
  static String brollProxy;
  static String notesTranscode;
  static String interviewTranscode;
  static Browser browser;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOTSTRAP));
    editor = app.createAndLogin(admin, "eddie", "editor", "editor password 123");
    String folder = JobsViewBrowserTest.gql(editor, "mutation { createFolder(name: \"Shoot day 2\") { id } }")
        .getJsonObject("createFolder").getString("id");
    String interview = upload("interview.mp4", folder);
    String broll = upload("BROLL_01.mp4", folder);
    String notes = upload("notes.mov", folder);
    proxy = new ContractWorker(app, BOOTSTRAP, ContractWorker.manifest("dash-proxy", PROXY));
    assertThat(proxy.register().status()).isEqualTo(201);
    transcoder = new ContractWorker(app, BOOTSTRAP, ContractWorker.manifest("dash-transcoder", TRANSCODE));
    assertThat(transcoder.register().status()).isEqualTo(201);

    interviewProxy = enqueue(interview, PROXY);
    brollProxy = enqueue(broll, PROXY);
    notesTranscode = enqueue(notes, TRANSCODE);
    proxy.runToDone(interviewProxy);
    proxy.failNext(brollProxy, ERROR);
    transcoder.runToDone(notesTranscode);
    interviewTranscode = enqueue(interview, TRANSCODE);

    browser = Browser.open(app);
    browser.resize(1366, 900);
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(browser);
  }

  // ---- seeding through the real APIs ----

  static String upload(String name, String folder) {
    return app.uploadVideo(editor, folder, name);
  }

  static String enqueue(String fileId, String kind) {
    return GraphqlHttp.enqueueJob(app.client(), editor, fileId, kind);
  }

  // ---- page helpers ----

  /** The job ids the table shows, top to bottom. */
  @SuppressWarnings("unchecked")
  static List<String> rows() {
    return (List<String>) browser.script(
        "return [...document.querySelectorAll('#job-rows tr[data-job-id]')].map(r => r.dataset.jobId);");
  }

  static void rowsAre(String... ids) {
    browser.until(d -> rows().equals(List.of(ids)));
  }

  static int count(String css) {
    return browser.all(By.cssSelector(css)).size();
  }

  /** Sets the filter form (null: leave a field as it is) and presses Filter. */
  static void filter(String status, String kind, String worker, String file) {
    if (status != null) {
      new Select(browser.find(By.id("filter-status"))).selectByValue(status);
    }
    if (kind != null) {
      By option = By.cssSelector("#filter-kind option[value='" + kind + "']");
      browser.until(d -> !d.findElements(option).isEmpty());
      new Select(browser.find(By.id("filter-kind"))).selectByValue(kind);
    }
    if (worker != null) {
      WebElement field = browser.find(By.id("filter-worker"));
      field.clear();
      field.sendKeys(worker);
    }
    if (file != null) {
      WebElement field = browser.find(By.id("filter-file"));
      field.clear();
      field.sendKeys(file);
    }
    browser.find(By.id("filter-apply")).click();
  }

  static void at(String location) {
    browser.until(d -> browser.location().equals(location));
  }

  /** Screenshots the page at both widths (and checks nothing scrolls sideways at the narrow one). */
  static void screenshots(String name, Runnable ready) {
    try {
      for (int[] size : SIZES) {
        browser.resize(size[0], size[1]);
        ready.run();
        assertThat(browser.overflowsSideways()).as(name + " at " + size[0] + " px").isFalse();
        browser.screenshot(name + "-" + size[0] + "x" + size[1]);
      }
    } finally {
      browser.resize(1366, 900);
    }
  }

  // ---- the tests ----

  @Test
  @Order(1)
  void theDashboardShowsOneCardPerFigureAndTheChartsHaveTheJobsThatRan() {
    browser.signIn("ada", TestApp.ADMIN_PASSWORD, "/admin/jobs");
    browser.visible(By.id("panel-dashboard"));
    assertThat(browser.attribute(By.id("tab-dashboard"), "aria-selected")).isEqualTo("true");
    browser.textIn(By.id("figures"), "Live workers");
    assertThat(browser.text(By.id("figures"))).contains("Jobs queued\n1", "Jobs claimed\n0", "Jobs running\n0",
        "Jobs done\n2", "Jobs failed\n1", "Jobs cancelled\n0", "Live workers\n2");
    assertThat(count("#figures > div")).as("one card per figure").isEqualTo(7);

    // the jobs ran this minute (or the last one, sampled two seconds after it ended): wait for them
    By throughputDesc = By.cssSelector("#chart-throughput-svg svg desc");
    browser.until(d -> {
      List<WebElement> desc = d.findElements(throughputDesc);
      if (!desc.isEmpty() && desc.get(0).getAttribute("textContent").contains("2 jobs finished and 1 failed")) {
        return true;
      }
      d.findElement(By.id("refresh")).click();
      return false;
    });
    assertThat(count("#chart-throughput-svg rect.bar.finished")).isPositive();
    assertThat(count("#chart-throughput-svg rect.bar.failed")).isPositive();
    assertThat(count("#chart-depth-svg circle.point")).as("the current minute at least").isPositive();
    assertThat(browser.attribute(By.cssSelector("#chart-throughput-svg svg"), "role")).isEqualTo("img");
    assertThat(browser.attribute(By.cssSelector("#chart-depth-svg svg desc"), "textContent"))
        .contains("Open jobs now: 1.");
    assertThat(browser.text(By.cssSelector("#chart-throughput-svg svg g.axis"))).contains("Jobs", "Minute");
    assertThat(browser.headingOrderProblems()).as("heading order on the dashboard").isEmpty();
    // the charts are drawn for the room they have (again when the window changes size)
    screenshots("jobs-dashboard", () -> browser.until(d -> Boolean.TRUE.equals(browser.script(
        "return [...document.querySelectorAll('.chart')].every(c => { const s = c.querySelector('svg');"
            + " return !!s && s.viewBox.baseVal.width === Math.min(640, Math.max(300, c.clientWidth)); });"))));
  }

  @Test
  @Order(2)
  void theJobsTableFiltersByStatusKindWorkerAndFileNameAndTheAddressKeepsThem() {
    browser.find(By.id("tab-jobs")).click();
    at("/admin/jobs?tab=jobs");
    rowsAre(interviewTranscode, notesTranscode, brollProxy, interviewProxy);
    assertThat(browser.text(By.id("jobs-count"))).isEqualTo("4 jobs match.");
    assertThat(browser.text(By.id("jobrow-" + brollProxy))).contains("BROLL_01.mp4", PROXY, "Failed", "dash-proxy",
        ERROR);
    assertThat(browser.headingOrderProblems()).as("heading order on the jobs table").isEmpty();

    filter("failed", null, null, null);
    at("/admin/jobs?tab=jobs&status=failed");
    rowsAre(brollProxy);
    filter("", TRANSCODE, null, null);
    at("/admin/jobs?tab=jobs&kind=test%2Ftranscode");
    rowsAre(interviewTranscode, notesTranscode);
    filter(null, "", "dash-proxy", null);
    at("/admin/jobs?tab=jobs&worker=dash-proxy");
    rowsAre(brollProxy, interviewProxy);
    filter(null, null, null, "broll_"); // any case; the _ is not a wildcard
    at("/admin/jobs?tab=jobs&worker=dash-proxy&file=broll_");
    rowsAre(brollProxy);

    // Back and Forward walk the views, and the form follows
    browser.driver.navigate().back();
    at("/admin/jobs?tab=jobs&worker=dash-proxy");
    rowsAre(brollProxy, interviewProxy);
    assertThat(browser.attribute(By.id("filter-file"), "value")).isEmpty();
    assertThat(browser.attribute(By.id("filter-worker"), "value")).isEqualTo("dash-proxy");
    browser.driver.navigate().back();
    at("/admin/jobs?tab=jobs&kind=test%2Ftranscode");
    rowsAre(interviewTranscode, notesTranscode);
    assertThat(browser.attribute(By.id("filter-kind"), "value")).isEqualTo(TRANSCODE);
    browser.driver.navigate().back();
    rowsAre(brollProxy);
    assertThat(browser.attribute(By.id("filter-status"), "value")).isEqualTo("failed");
    browser.driver.navigate().forward();
    rowsAre(interviewTranscode, notesTranscode);

    // a link reproduces a view
    browser.go("/admin/jobs?tab=jobs&worker=dash-transcoder");
    rowsAre(notesTranscode);
    browser.go("/admin/jobs?tab=jobs&status=nonsense");
    browser.textIn(By.id("jobs-status"), "status must be one of");
    browser.go("/admin/jobs?tab=jobs");
    rowsAre(interviewTranscode, notesTranscode, brollProxy, interviewProxy);
    screenshots("jobs-table", () -> rowsAre(interviewTranscode, notesTranscode, brollProxy, interviewProxy));
  }

  @Test
  @Order(3)
  void retryOnAFailedJobQueuesANewJobThatTheTableShows() {
    browser.go("/admin/jobs?tab=jobs&status=failed");
    rowsAre(brollProxy);
    assertThat(count("#jobrow-" + interviewProxy + " button.retry")).isZero();
    browser.find(By.cssSelector("#jobrow-" + brollProxy + " button.retry")).click();
    browser.textIn(By.id("jobs-status"), "Retried " + PROXY + " on BROLL_01.mp4: a new job is queued.");
    filter("", null, null, "broll");
    at("/admin/jobs?tab=jobs&file=broll");
    browser.until(d -> rows().size() == 2 && rows().get(1).equals(brollProxy));
    String retried = rows().get(0);
    assertThat(retried).isNotEqualTo(brollProxy);
    assertThat(browser.attribute(By.id("jobrow-" + retried), "data-status")).isEqualTo("queued");
    assertThat(browser.text(By.id("jobrow-" + retried))).contains("BROLL_01.mp4", PROXY, "Queued");
    // the failed job stays as it was, its error on record
    assertThat(browser.attribute(By.id("jobrow-" + brollProxy), "data-status")).isEqualTo("failed");
  }

  @Test
  @Order(4)
  void theWorkersTabShowsEachWorkerAndRevokesOneAfterAConfirmation() {
    browser.go("/admin/jobs?tab=workers");
    browser.textIn(By.id("workers"), "dash-transcoder");
    String row = browser.text(By.id("worker-" + proxy.workerId()));
    assertThat(row).contains("dash-proxy", "Live", PROXY);
    assertThat(browser.headingOrderProblems()).as("heading order on the workers").isEmpty();
    screenshots("jobs-workers", () -> browser.textIn(By.id("workers"), "dash-transcoder"));

    browser.find(By.cssSelector("#worker-" + transcoder.workerId() + " button.revoke")).click();
    browser.visible(By.id("revoke-confirm"));
    assertThat(browser.text(By.id("revoke-name"))).isEqualTo("dash-transcoder");
    browser.keys(Keys.ENTER); // the dialog puts the focus on its Revoke button
    browser.textIn(By.id("worker-" + transcoder.workerId()), "Revoked");
    assertThat(count("#worker-" + transcoder.workerId() + " button.revoke")).isZero();
    assertThat(transcoder.heartbeat().status()).as("the revoked worker's token stops working").isEqualTo(401);

    browser.go("/admin/jobs?tab=files");
    browser.textIn(By.id("library"), "BROLL_01.mp4");
    assertThat(browser.headingOrderProblems()).as("heading order on the files").isEmpty();
    screenshots("jobs-files", () -> browser.textIn(By.id("library"), "BROLL_01.mp4"));
  }

  @Test
  @Order(5)
  void anEditorSeesOnlyTheJobsAndFilesTabsAndMovesBetweenThemWithTheKeyboard() {
    browser.signOut();
    browser.signIn("eddie", "editor password 123", "/admin/jobs");
    browser.visible(By.id("panel-jobs"));
    assertThat(browser.find(By.id("tab-dashboard")).isDisplayed()).isFalse();
    assertThat(browser.find(By.id("tab-workers")).isDisplayed()).isFalse();
    browser.until(d -> rows().size() == 5);
    // editors may retry: the failed job's row has the button
    assertThat(count("#jobrow-" + brollProxy + " button.retry")).isEqualTo(1);
    assertThat(browser.headingOrderProblems()).as("heading order, editor's jobs table").isEmpty();
    // an address naming an administrators' tab opens the Jobs tab
    browser.go("/admin/jobs?tab=dashboard");
    browser.visible(By.id("panel-jobs"));
    assertThat(browser.find(By.id("panel-dashboard")).isDisplayed()).isFalse();
    browser.until(d -> rows().size() == 5);

    // the tabs from the keyboard: arrows move between the tabs this person has, and select them
    browser.find(By.id("tab-jobs")).click();
    browser.keys(Keys.ARROW_RIGHT);
    at("/admin/jobs?tab=files");
    browser.visible(By.id("panel-files"));
    assertThat(browser.script("return document.activeElement.id;")).isEqualTo("tab-files");
    assertThat(browser.find(By.id("panel-jobs")).isDisplayed()).isFalse();
    browser.keys(Keys.ARROW_RIGHT);
    at("/admin/jobs?tab=jobs");
    browser.visible(By.id("panel-jobs"));
    browser.driver.navigate().back();
    at("/admin/jobs?tab=files");
    browser.visible(By.id("panel-files"));
  }
}
