package io.shotstash.http.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Folders;
import io.shotstash.testing.Teardown;
import io.shotstash.testing.TestApp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;

/**
 * A file no kind of processing applies to (a text file on an instance whose only kinds are the
 * built-in video and HEIC ones): the jobs view says so in a sentence, with no empty select and no
 * Queue button.
 */
class JobsViewNoKindBrowserTest extends WithSignedInApp {
  static Browser browser;
  static String notesId;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of());
    String folder = Folders.create(app.client(), admin, "Notes");
    var r = app.client().post("/api/v1/files").bearerTokenAuthentication(admin).addQueryParam("folderId", folder)
        .putHeader("Content-Type", "text/plain").putHeader("X-File-Name", "notes.txt")
        .sendBuffer(Buffer.buffer("shot list")).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    notesId = r.bodyAsJsonObject().getJsonObject("data").getString("id");
    browser = Browser.open(app);
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(browser);
  }

  @Test
  void aFileNoKindAppliesToGetsASentenceNotAnEmptySelect() {
    browser.signIn("ada", TestApp.ADMIN_PASSWORD, "/admin/jobs");
    browser.go("/admin/jobs?tab=files"); // the file tree is the Files tab
    By sentence = By.cssSelector("#file-" + notesId + " .no-kind");
    browser.textIn(sentence, "No kind of processing applies to this type of file.");
    assertThat(browser.all(By.id("kind-" + notesId))).isEmpty();
    assertThat(browser.all(By.cssSelector("#file-" + notesId + " button.queue"))).isEmpty();
    assertThat(browser.headingOrderProblems()).isEmpty();
  }
}
