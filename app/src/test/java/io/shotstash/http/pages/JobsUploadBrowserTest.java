package io.shotstash.http.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.CuttableProxy;
import io.shotstash.testing.Folders;
import io.shotstash.testing.NoiseFiles;
import io.shotstash.testing.Teardown;
import io.shotstash.testing.WithSignedInApp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;

/**
 * The jobs view's Files tab uploads with tus-js-client (resumable uploads, /api/v1/uploads) in a
 * real headless Chromium, through a loopback proxy the test slows down and cuts: an upload whose
 * connection drops in the middle goes on by itself from the offset the server kept, and one paused
 * and then left (a reload) goes on when the same file is picked again. Each file arrives byte for
 * byte (SHA-256), as one library file made by one tus upload. Screenshots of the tab with its
 * uploads at 1366×900 and 390×844 go to target/screenshots/.
 */
@Timeout(300)
class JobsUploadBrowserTest extends WithSignedInApp {
  static final long MB = 1L << 20;
  static final String PASSWORD = "editor password 123";
  static String editor;
  static String folder;
  static CuttableProxy proxy;
  static Browser browser;

  @BeforeAll
  static void start() throws IOException {
    startSignedIn(Map.of());
    editor = app.createAndLogin(admin, "eddie", "editor", PASSWORD);
    Folders.create(app.client(), editor, "Archive");
    folder = Folders.create(app.client(), editor, "Rushes");
    proxy = new CuttableProxy(app.port());
    browser = Browser.through(proxy.port(), 1366, 900);
    browser.signIn("eddie", PASSWORD, "/admin/jobs");
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(browser, proxy);
  }

  static Path noise(String name, long size, long seed) throws IOException {
    return NoiseFiles.write(Files.createDirectories(Browser.TARGET.resolve("upload-files")).resolve(name), size, seed);
  }

  static void openFilesTab() {
    browser.go("/admin/jobs?tab=files");
    browser.visible(By.id("upload-form"));
    browser.until(d -> !d.findElements(By.cssSelector("#upload-folder option[value='" + folder + "']")).isEmpty());
  }

  /** Picks the folder and the file and presses Upload; answers the row's selector. */
  static By pick(Path file) {
    new Select(browser.find(By.id("upload-folder"))).selectByValue(folder);
    browser.find(By.id("upload-files")).sendKeys(file.toString());
    browser.find(By.id("upload-start")).click();
    return By.cssSelector("#uploads li.upload[data-name='" + file.getFileName() + "']");
  }

  static String attr(String name, String attribute) {
    Object value = browser.script("const e = document.querySelector(\"#uploads li.upload[data-name='\" + arguments[0]"
        + " + \"']\"); return e ? e.getAttribute(arguments[1]) : null;", name, attribute);
    return value == null ? null : value.toString();
  }

  /** The file arrived once, whole, from one tus upload, and is in the library's tree. */
  static void arrivedOnce(Path file) throws Exception {
    String name = file.getFileName().toString();
    browser.until(d -> "done".equals(attr(name, "data-state")));
    String fileId = attr(name, "data-file-id");
    assertThat(fileId).isNotBlank();
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name = '" + name + "'")).isEqualTo(1);
    assertThat(app.db().number("SELECT count(*) FROM tus_uploads WHERE file_name = '" + name + "'"))
        .as("one tus upload, resumed, not a second one").isEqualTo(1);
    assertThat(NoiseFiles.sha256(app.dataDir().resolve("media").resolve("originals").resolve(fileId)))
        .isEqualTo(NoiseFiles.sha256(file));
    assertThat(browser.text(By.cssSelector("#uploads li.upload[data-name='" + name + "'] .pct"))).isEqualTo("100%");
    browser.until(d -> !d.findElements(By.id("file-" + fileId)).isEmpty()); // the tree was read again
  }

  /** Opens the Files tab, uploads the file, and presses its Pause once more than {@code sent} bytes went. */
  static void pausedAfter(Path file, long sent) {
    String name = file.getFileName().toString();
    openFilesTab();
    pick(file);
    browser.until(d -> attr(name, "data-offset") != null && Long.parseLong(attr(name, "data-offset")) > sent);
    browser.find(By.cssSelector("#uploads li.upload[data-name='" + name + "'] button.pause")).click();
    browser.until(d -> "paused".equals(attr(name, "data-state")));
  }

  /** A step of a test that may throw. */
  interface Steps {
    void run() throws Exception;
  }

  /** Runs the steps with the proxy passing {@code bytesPerSecond}, and unthrottled after them, whatever happens. */
  static void throttled(long bytesPerSecond, Steps steps) throws Exception {
    proxy.throttle(bytesPerSecond);
    try {
      steps.run();
    } finally {
      proxy.throttle(0);
    }
  }

  static void screenshots(String name) {
    for (int[] size : new int[][]{{1366, 900}, {390, 844}}) {
      browser.resize(size[0], size[1]);
      assertThat(browser.overflowsSideways()).as("%s at %d px scrolls sideways", name, size[0]).isFalse();
      browser.screenshot(name + "-" + size[0] + "x" + size[1]);
    }
    browser.resize(1366, 900);
  }

  @Test
  void anUploadWhoseConnectionDropsGoesOnAndArrivesWhole() throws Exception {
    Path file = noise("dropped.bin", 24 * MB, 1);
    throttled(6 * MB, () -> {
      openFilesTab();
      long before = proxy.upstreamBytes();
      pick(file);
      browser.until(d -> proxy.upstreamBytes() - before > 8 * MB);
      proxy.cut(); // the network drops in the middle of the PATCH
      browser.until(d -> attr("dropped.bin", "data-state") != null
          && Long.parseLong(attr("dropped.bin", "data-offset") == null ? "0" : attr("dropped.bin", "data-offset")) > 12
              * MB);
      arrivedOnce(file);
      screenshots("jobs-upload-done");
    });
  }

  @Test
  void aPausedUploadGoesOnAfterAReloadWhenTheFileIsPickedAgain() throws Exception {
    Path file = noise("paused.bin", 16 * MB, 2);
    throttled(3 * MB, () -> {
      pausedAfter(file, 2 * MB);
      assertThat(browser.find(By.cssSelector("#uploads li.upload[data-name='paused.bin'] button.resume"))
          .isDisplayed()).isTrue();
      screenshots("jobs-upload-paused");

      // Resume, then leave the page in the middle: a reload forgets the upload's row, not the upload
      browser.find(By.cssSelector("#uploads li.upload[data-name='paused.bin'] button.resume")).click();
      browser.until(d -> "uploading".equals(attr("paused.bin", "data-state"))
          || "retrying".equals(attr("paused.bin", "data-state")));
      long sentBefore = Long.parseLong(attr("paused.bin", "data-offset"));
      browser.until(d -> Long.parseLong(attr("paused.bin", "data-offset")) > sentBefore);
      openFilesTab();
      browser.textIn(By.id("unfinished"), "paused.bin into Rushes: ");
      assertThat(browser.text(By.id("unfinished"))).contains("of 16 MB sent");
      screenshots("jobs-upload-unfinished");
      proxy.throttle(0);
      pick(file);
      browser.until(d -> "true".equals(attr("paused.bin", "data-resumed")));
      arrivedOnce(file);
    });
  }

  @Test
  void anUnfinishedUploadCanBeDiscardedAfterAReload() throws Exception {
    Path file = noise("discarded.bin", 8 * MB, 3);
    throttled(2 * MB, () -> {
      pausedAfter(file, MB);
      String id = app.db().text("SELECT id FROM tus_uploads WHERE file_name = 'discarded.bin'");
      openFilesTab();
      browser.textIn(By.id("unfinished"), "discarded.bin");
      browser.find(By.cssSelector("#unfinished li[data-name='discarded.bin'] button.discard")).click();
      browser.until(d -> d.findElements(By.cssSelector("#unfinished li[data-name='discarded.bin']")).isEmpty());
      assertThat(browser.text(By.id("jobs-status"))).isEqualTo("Discarded the unfinished upload of discarded.bin.");
      assertThat(app.db().number("SELECT count(*) FROM tus_uploads WHERE file_name = 'discarded.bin'")).isZero();
      assertThat(Files.exists(app.dataDir().resolve("media").resolve("uploads").resolve(id + ".part"))).isFalse();
      openFilesTab();
      assertThat(browser.all(By.cssSelector("#unfinished li[data-name='discarded.bin']"))).isEmpty();
    });
  }
}
