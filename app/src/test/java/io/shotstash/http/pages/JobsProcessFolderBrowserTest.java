package io.shotstash.http.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.GraphqlHttp;
import io.shotstash.testing.Teardown;
import io.shotstash.testing.TestApp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;

/**
 * The Files tab's "Process folder" (enqueueFolder) in a real Chromium: an editor picks a kind, takes
 * the sub-folders in, and reads how many jobs were queued, skipped and not taken; the new jobs show on
 * their files; a second press queues nothing; a person below editor sees no form. Screenshots at 1366×900
 * and 390×844 in {@code target/screenshots/}.
 */
class JobsProcessFolderBrowserTest extends WithSignedInApp {
  static final String PROXY = "shotstash/proxy-720p";
  static Browser browser;
  static String shoot;
  static String dayTwoVideo;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of());
    shoot = folder("Shoot", null);
    String dayTwo = folder("Day 2", shoot);
    String first = app.uploadVideo(admin, shoot, "opening.mp4");
    app.uploadVideo(admin, shoot, "interview.mp4");
    app.uploadVideo(admin, shoot, "closing.mp4");
    app.upload(admin, shoot, "still.jpg", "image/jpeg", "not really a photo".getBytes(StandardCharsets.UTF_8));
    dayTwoVideo = app.uploadVideo(admin, dayTwo, "b-roll.mp4");
    app.uploadVideo(admin, dayTwo, "drone.mp4");
    GraphqlHttp.enqueueJob(app.client(), admin, first, PROXY); // already queued: skipped
    app.createPerson(admin, "uma", "user", "user password 123");
    browser = Browser.open(app, 1366, 900);
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(browser);
  }

  static String folder(String name, String parentId) {
    JsonObject r = GraphqlHttp.post(app.client(), admin,
        "mutation($n: String!, $p: ID) { createFolder(name: $n, parentId: $p) { id } }",
        new JsonObject().put("n", name).put("p", parentId)).bodyAsJsonObject();
    return GraphqlHttp.data(r).getJsonObject("createFolder").getString("id");
  }

  @Test
  void anEditorProcessesAFolderWithItsSubFoldersAndReadsTheCounts() {
    browser.signIn("ada", TestApp.ADMIN_PASSWORD, "/admin/jobs");
    browser.go("/admin/jobs?tab=files");
    By kind = By.id("process-kind-" + shoot);
    browser.until(d -> !d.findElements(By.cssSelector("#process-kind-" + shoot + " option[value='" + PROXY + "']"))
        .isEmpty());
    assertThat(browser.attribute(By.cssSelector("label[for='process-kind-" + shoot + "']"), "textContent"))
        .isEqualTo("Process every file as");
    new Select(browser.find(kind)).selectByValue(PROXY);
    browser.find(By.cssSelector("label[for='process-sub-" + shoot + "']")).click();
    assertThat(browser.find(By.id("process-sub-" + shoot)).isSelected()).isTrue();
    browser.find(By.cssSelector("form.process-folder[aria-label='Process every file of Shoot'] button.process"))
        .click();

    By result = By.id("process-result-" + shoot);
    String counts = PROXY + ": Queued 4 jobs; skipped 1 file already queued or running; 1 file the kind does not take.";
    browser.textIn(result, counts);
    browser.textIn(By.id("jobs-status"), "Shoot: " + counts);
    // the library was read again: the sub-folder's file shows its new job
    browser.until(d -> !d.findElements(By.cssSelector("#file-" + dayTwoVideo + "-jobs li.job")).isEmpty());
    browser.textIn(By.cssSelector("#file-" + dayTwoVideo + "-jobs li.job .what"), PROXY);
    assertThat(browser.headingOrderProblems()).isEmpty();
    browser.screenshot("jobs-process-folder-1366x900");

    // the redrawn form keeps the choice it was sent with
    assertThat(new Select(browser.find(kind)).getFirstSelectedOption().getAttribute("value")).isEqualTo(PROXY);
    assertThat(browser.find(By.id("process-sub-" + shoot)).isSelected()).isTrue();

    // again, on a phone: every file the kind takes already has its job
    browser.resize(390, 844);
    try {
      browser.find(By.cssSelector("form.process-folder[aria-label='Process every file of Shoot'] button.process"))
          .click();
      browser.textIn(result, PROXY + ": Queued 0 jobs; skipped 5 files already queued or running; 1 file the kind"
          + " does not take.");
      assertThat(browser.overflowsSideways()).as("nothing scrolls sideways at 390 px").isFalse();
      browser.screenshot("jobs-process-folder-390x844");
    } finally {
      browser.resize(1366, 900);
      browser.signOut();
    }
  }

  @Test
  void aPersonBelowEditorHasNoProcessFolder() {
    browser.signIn("uma", "user password 123", "/admin/jobs");
    try {
      browser.go("/admin/jobs?tab=files");
      browser.visible(By.id("file-" + dayTwoVideo));
      assertThat(browser.all(By.cssSelector("form.process-folder"))).isEmpty();
    } finally {
      browser.signOut();
    }
  }
}
