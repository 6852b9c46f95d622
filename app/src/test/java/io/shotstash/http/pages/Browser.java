package io.shotstash.http.pages;

import io.shotstash.testing.TestApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.net.PortProber;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A headless Chromium driven by Selenium, the way STACK.md describes: Debian's {@code /usr/bin/chromium}
 * and {@code /usr/bin/chromedriver} named explicitly (so Selenium Manager never downloads anything),
 * the flags that keep Chromium off the network, and a fresh profile and download folder under
 * {@code target/}. Every wait is an explicit, bounded {@link WebDriverWait}.
 */
final class Browser implements AutoCloseable {
  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path TARGET = Path.of("target").toAbsolutePath();
  static final Path SCREENSHOTS = TARGET.resolve("screenshots");
  static final Duration WAIT = Duration.ofSeconds(20);

  final ChromeDriver driver;
  final String base;
  final Path downloads;
  private final Path profile;

  private Browser(TestApp app, int width, int height) {
    this(app.port(), width, height);
  }

  private Browser(int port, int width, int height) {
    if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
      // one line naming the packages, never a skip (TESTING.md)
      throw new IllegalStateException("the browser tests need Debian's chromium and chromium-driver "
          + "(/usr/bin/chromium, /usr/bin/chromedriver): apt-get install chromium chromium-driver (.ci/run installs them)");
    }
    String run = UUID.randomUUID().toString();
    profile = mkdirs(TARGET.resolve("chromium-profiles").resolve(run));
    downloads = mkdirs(TARGET.resolve("downloads").resolve(run));
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile, "--window-size=" + width + "," + height);
    options.setExperimentalOption("prefs", Map.of(
        "download.default_directory", downloads.toString(),
        "download.prompt_for_download", false,
        "download.directory_upgrade", true,
        "safebrowsing.enabled", false));
    // the service is made directly, not with its Builder (whose annotation would cost a javac warning)
    int driverPort = PortProber.findFreePort();
    ChromeDriverService service;
    try {
      service = new ChromeDriverService(CHROMEDRIVER.toFile(), driverPort, Duration.ofSeconds(20),
          List.of("--port=" + driverPort, "--log-path=" + TARGET.resolve("chromedriver-" + run + ".log")), Map.of());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    driver = new ChromeDriver(service, options);
    driver.manage().window().setSize(new Dimension(width, height));
    // headless Chromium may refuse downloads unless told where to put them
    driver.executeCdpCommand("Browser.setDownloadBehavior", Map.of("behavior", "allow",
        "downloadPath", downloads.toString(), "eventsEnabled", true));
    base = "http://127.0.0.1:" + port;
  }

  /** A browser with a 1280×900 window. */
  static Browser open(TestApp app) {
    return new Browser(app, 1280, 900);
  }

  /** A browser with a window of this size. */
  static Browser open(TestApp app, int width, int height) {
    return new Browser(app, width, height);
  }

  /** A browser that reaches the app at another port of loopback (a proxy in front of it). */
  static Browser through(int port, int width, int height) {
    return new Browser(port, width, height);
  }

  private static Path mkdirs(Path dir) {
    try {
      return Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void go(String path) {
    driver.get(base + path);
  }

  /** The path and query of the current page. */
  String location() {
    String url = driver.getCurrentUrl();
    return url.startsWith(base) ? url.substring(base.length()) : url;
  }

  /** Waits for the condition; an element the page redrew meanwhile (stale) just means: look again. */
  <T> T until(Function<WebDriver, T> condition) {
    WebDriverWait wait = new WebDriverWait(driver, WAIT);
    wait.ignoring(StaleElementReferenceException.class);
    return wait.until(condition);
  }

  /** The text of the element, read again if the page redraws it meanwhile. */
  String text(By by) {
    return until(d -> d.findElement(by).getText());
  }

  /** An attribute of the element (empty when it has none), read again if the page redraws it meanwhile. */
  String attribute(By by, String name) {
    return until(d -> {
      String value = d.findElement(by).getAttribute(name);
      return value == null ? "" : value;
    });
  }

  WebElement visible(By by) {
    return until(ExpectedConditions.visibilityOfElementLocated(by));
  }

  WebElement find(By by) {
    return driver.findElement(by);
  }

  List<WebElement> all(By by) {
    return driver.findElements(by);
  }

  /** Waits until the element's text contains {@code text}. */
  void textIn(By by, String text) {
    until(d -> {
      List<WebElement> found = d.findElements(by);
      return !found.isEmpty() && found.get(0).getText().contains(text);
    });
  }

  /** Types keys to whatever has the focus (as a person at the keyboard does). */
  void keys(CharSequence... keys) {
    new Actions(driver).sendKeys(keys).perform();
  }

  /**
   * axe-core's heading-order rule, read off the page: each heading a reader meets (shown, or only
   * visually hidden; not in a closed dialog or a hidden panel) is at most one level below the one
   * before. Answers each step that skips a level, e.g. {@code "h1 Jobs -> h4 interview.mp4"}.
   */
  @SuppressWarnings("unchecked")
  List<String> headingOrderProblems() {
    return (List<String>) script("const out = []; let last = null;"
        + " for (const e of document.querySelectorAll('h1,h2,h3,h4,h5,h6')) {"
        + "   if (e.closest('dialog:not([open])') || e.getClientRects().length === 0) continue;"
        + "   const level = Number(e.tagName.substring(1));"
        + "   if (last && level > last.level + 1) out.push(last.tag + ' ' + last.text + ' -> ' + e.tagName.toLowerCase()"
        + "     + ' ' + e.textContent.trim());"
        + "   last = { level, tag: e.tagName.toLowerCase(), text: e.textContent.trim() };"
        + " } return out;");
  }

  Object script(String js, Object... args) {
    return ((JavascriptExecutor) driver).executeScript(js, args);
  }

  /** Signs in on the sign-in page with a password and waits to arrive at {@code returnPath}. */
  void signIn(String login, String password, String returnPath) {
    go("/login?return=" + returnPath);
    WebElement loginField = visible(By.id("login"));
    loginField.clear();
    loginField.sendKeys(login);
    WebElement passwordField = find(By.id("password"));
    passwordField.clear();
    passwordField.sendKeys(password);
    // the page's script enables the button once it runs
    until(ExpectedConditions.elementToBeClickable(By.id("signin-submit"))).click();
    until(d -> location().equals(returnPath));
  }

  /** Signs out with the header's button and waits for the sign-in page. */
  void signOut() {
    visible(By.id("sign-out")).click();
    until(d -> location().startsWith("/login"));
  }

  void resize(int width, int height) {
    driver.manage().window().setSize(new Dimension(width, height));
  }

  /** Whether the page is wider than the window (something would scroll sideways). */
  boolean overflowsSideways() {
    Object overflow = script("return document.documentElement.scrollWidth > document.documentElement.clientWidth;");
    return Boolean.TRUE.equals(overflow);
  }

  /** Saves a screenshot of the whole page (beyond the window) to {@code target/screenshots/<name>.png}. */
  Path screenshot(String name) {
    Map<String, Object> metrics = driver.executeCdpCommand("Page.getLayoutMetrics", Map.of());
    @SuppressWarnings("unchecked")
    Map<String, Object> size = (Map<String, Object>) metrics.get("cssContentSize");
    double width = ((Number) size.get("width")).doubleValue();
    double height = Math.min(((Number) size.get("height")).doubleValue(), 8000);
    Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot", Map.of("format", "png",
        "captureBeyondViewport", true,
        "clip", Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
    Path file = mkdirs(SCREENSHOTS).resolve(name + ".png");
    try {
      Files.write(file, Base64.getDecoder().decode((String) shot.get("data")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      deleteTree(profile);
    }
  }

  static void deleteTree(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover profile under target/ is harmless
    }
  }
}
