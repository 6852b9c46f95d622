package io.shotstash.http.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Repo;
import io.shotstash.testing.TestApp;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The staff screens over plain HTTP: who gets which page, the site's 404 page, the redirect to the
 * sign-in page, the security headers on every page and the long-cached assets.
 */
class PagesHttpTest extends WithSignedInApp {
  static final Path WEBROOT = Repo.path("app/src/main/resources/webroot");
  static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
      + "connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
  static final Pattern ASSET = Pattern.compile("/assets/([0-9a-f]{16})/([a-z0-9/.-]+)");

  static WebClient http;
  static String staff;
  static String editor;
  static String user;

  @BeforeAll
  static void start() {
    startSignedIn(Map.of());
    staff = app.createAndLogin(admin, "sue-staff", "staff", "staff password 123");
    editor = app.createAndLogin(admin, "ed-editor", "editor", "editor password 123");
    user = app.createAndLogin(admin, "uli-user", "user", "user password 123");
    http = app.noRedirectClient();
  }

  /** A GET as a browser makes it: with the session cookie when {@code session} is not null. */
  static HttpResponse<Buffer> get(String path, String session) {
    HttpRequest<Buffer> req = http.get(path).putHeader("Accept", "text/html");
    if (session != null) {
      req.putHeader("Cookie", "shotstash_session=" + session);
    }
    return req.send().await();
  }

  /** A page: HTML, the restrictive CSP, no framing, never cached, nosniff; answers the body. */
  static String page(HttpResponse<Buffer> r, int status) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(status);
    assertThat(r.getHeader("Content-Type")).isEqualTo("text/html; charset=utf-8");
    assertThat(r.getHeader("Content-Security-Policy")).isEqualTo(CSP);
    assertThat(r.getHeader("X-Frame-Options")).isEqualTo("DENY");
    assertThat(r.getHeader("Cache-Control")).isEqualTo("no-store");
    assertThat(r.getHeader("X-Content-Type-Options")).isEqualTo("nosniff");
    assertThat(r.getHeader("Referrer-Policy")).isEqualTo("same-origin");
    String html = r.bodyAsString();
    assertThat(html).startsWith("<!doctype html>").contains("<html lang=\"en\">")
        .contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .doesNotContain("{{");
    return html;
  }

  static String notFoundPage(HttpResponse<Buffer> r) {
    String html = page(r, 404);
    assertThat(html).contains("<title>Not found · Shotstash</title>").contains("Page not found");
    return html;
  }

  static void jsonNotFound(HttpResponse<Buffer> r) {
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.getHeader("Content-Type")).startsWith("application/json");
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getBoolean("success")).isFalse();
    assertThat(body.getJsonObject("error").getString("code")).isEqualTo("not_found");
  }

  // ---- who gets which page ----

  @Test
  void theSignInPageIsForEveryone() {
    String html = page(get("/login", null), 200);
    assertThat(html).contains("<title>Sign in · Shotstash</title>").contains("<label for=\"login\">")
        .contains("<label for=\"password\">").contains("data-github=\"false\"");
    // signed-in people may open it too (it offers to go on or sign out)
    page(get("/login?return=/admin/jobs", user), 200);
  }

  @Test
  void theMembersDeskIsForStaffAndAdministratorsOnly() {
    notFoundPage(get("/admin/members", null));
    notFoundPage(get("/admin/members", user));
    notFoundPage(get("/admin/members", editor));
    notFoundPage(get("/admin/members", "not-a-session"));
    assertThat(page(get("/admin/members", staff), 200)).contains("<title>Members desk · Shotstash</title>");
    assertThat(page(get("/admin/members", admin), 200)).contains("<h1>Members desk</h1>");
    // a bearer session counts as well as the cookie
    HttpResponse<Buffer> bearer = http.get("/admin/members").bearerTokenAuthentication(staff).send().await();
    page(bearer, 200);
  }

  @Test
  void theJobsViewSendsAnonymousCallersToSignIn() {
    HttpResponse<Buffer> r = get("/admin/jobs", null);
    assertThat(r.statusCode()).isEqualTo(302);
    assertThat(r.getHeader("Location")).isEqualTo("/login?return=/admin/jobs");
    assertThat(r.getHeader("Cache-Control")).isEqualTo("no-store");
    assertThat(get("/admin/jobs", "not-a-session").getHeader("Location")).isEqualTo("/login?return=/admin/jobs");
    for (String session : List.of(user, editor, staff, admin)) {
      assertThat(page(get("/admin/jobs", session), 200)).contains("<title>Jobs · Shotstash</title>");
    }
  }

  @Test
  void theStartPageOffersSignInToAnonymousCallers() {
    for (String session : new String[]{null, "not-a-session"}) {
      String html = page(get("/", session), 200);
      assertThat(html).contains("<title>Welcome · Shotstash</title>").contains("href=\"/login?return=/\"")
          .doesNotContain("/admin/members").doesNotContain("/admin/jobs");
    }
  }

  @Test
  void theStartPageListsTheScreensEachLevelReaches() {
    String forUser = page(get("/", user), 200);
    assertThat(forUser).contains("<title>Home · Shotstash</title>").contains("Hello, Person uli-user")
        .contains("Signed in as @uli-user (user).").contains("href=\"/admin/jobs\"").contains("href=\"/graphiql\"")
        .contains("to look at and download").doesNotContain("/admin/members");
    assertThat(page(get("/", editor), 200)).contains("queue and cancel jobs").doesNotContain("/admin/members");
    assertThat(page(get("/", staff), 200)).contains("href=\"/admin/members\"").contains("href=\"/admin/jobs\"")
        .doesNotContain("the workers");
    assertThat(page(get("/", admin), 200)).contains("href=\"/admin/members\"").contains("the workers and the pipeline")
        .contains("Signed in as @ada (administrator).");
    // a bearer session counts as well as the cookie
    assertThat(page(http.get("/").bearerTokenAuthentication(staff).send().await(), 200)).contains("/admin/members");
  }

  @Test
  void beforeSetupTheStartPageSaysHowToFinishIt() {
    try (TestApp fresh = TestApp.start()) {
      HttpResponse<Buffer> r = fresh.client().get("/").putHeader("Accept", "text/html").send().await();
      String html = page(r, 200);
      assertThat(html).contains("<title>Finish setup · Shotstash</title>")
          .contains("curl -X POST http://127.0.0.1:" + fresh.port() + "/api/setup")
          .contains("X-Setup-Token: &lt;setup token&gt;")
          // TestApp sets SHOTSTASH_SETUP_TOKEN (the token printed in the log is ReadmeCommandsIT's case)
          .contains("<code>SHOTSTASH_SETUP_TOKEN</code>").doesNotContain("/admin/members");
      // the API meanwhile still answers that setup is required
      assertThat(fresh.client().get("/api/auth/me").send().await().statusCode()).isEqualTo(503);
    }
  }

  @Test
  void unknownPagesGetTheSitesNotFoundPage() {
    for (String path : List.of("/nope", "/admin", "/admin/", "/admin/members/extra", "/admin/other", "/login/x",
        "/assets", "/favicon.ico", "/people/jane")) {
      notFoundPage(get(path, null));
      notFoundPage(get(path, staff));
    }
  }

  @Test
  void apiAndMediaKeepTheirJsonNotFound() {
    jsonNotFound(get("/api/nope", null));
    jsonNotFound(get("/api/admin/members", null));
    jsonNotFound(get("/media/nope", staff));
    jsonNotFound(get("/media/x/y/z", null));
    HttpResponse<Buffer> health = get("/health", null);
    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.bodyAsJsonObject().getString("status")).isEqualTo("ok");
  }

  // ---- what the pages hold ----

  @Test
  void pagesLoadOnlyTheSitesOwnScriptsAndStylesAndNothingInline() {
    List<String> htmls = List.of(page(get("/", null), 200), page(get("/", admin), 200),
        page(get("/login", null), 200), page(get("/admin/members", staff), 200),
        page(get("/admin/jobs", user), 200), notFoundPage(get("/nope", null)));
    for (String html : htmls) {
      Matcher scripts = Pattern.compile("<script([^>]*)>(.*?)</script>", Pattern.DOTALL).matcher(html);
      while (scripts.find()) {
        assertThat(scripts.group(1)).contains("type=\"module\"").containsPattern("src=\"/assets/[0-9a-f]{16}/js/");
        assertThat(scripts.group(2)).isEmpty();
      }
      assertThat(html).doesNotContainPattern("\\sstyle=").doesNotContainPattern("\\son[a-z]+=")
          .doesNotContain("<style").doesNotContain("javascript:");
    }
  }

  @Test
  void everyAssetAPageNamesIsServedAndCachedForAYear() {
    String html = page(get("/admin/members", staff), 200) + page(get("/admin/jobs", staff), 200)
        + page(get("/login", null), 200);
    Matcher m = ASSET.matcher(html);
    List<String> named = new ArrayList<>();
    String version = null;
    while (m.find()) {
      version = version == null ? m.group(1) : version;
      assertThat(m.group(1)).as("one version on every page").isEqualTo(version);
      named.add(m.group(2));
    }
    assertThat(named).contains("css/site.css", "img/icon.svg", "js/login.js", "js/members.js", "js/jobs.js");
    for (String asset : named) {
      HttpResponse<Buffer> r = get("/assets/" + version + "/" + asset, null);
      assertThat(r.statusCode()).as(asset).isEqualTo(200);
      assertThat(r.getHeader("Cache-Control")).isEqualTo("public, max-age=31536000, immutable");
      assertThat(r.getHeader("X-Content-Type-Options")).isEqualTo("nosniff");
    }
    assertThat(get("/assets/" + version + "/js/members.js", null).getHeader("Content-Type"))
        .isEqualTo("text/javascript; charset=utf-8");
    assertThat(get("/assets/" + version + "/css/site.css", null).getHeader("Content-Type"))
        .isEqualTo("text/css; charset=utf-8");
    assertThat(get("/assets/" + version + "/img/icon.svg", null).getHeader("Content-Type")).isEqualTo("image/svg+xml");
  }

  @Test
  void everyFileUnderWebrootIsServedWithItsBytesAndEveryModuleImportResolves() throws IOException {
    String version = version();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(WEBROOT)) {
      files = walk.filter(Files::isRegularFile).toList();
    }
    for (Path file : files) {
      String rel = WEBROOT.relativize(file).toString().replace('\\', '/');
      if (rel.endsWith(".html")) {
        continue; // pages are served at their own paths
      }
      HttpResponse<Buffer> r = get("/assets/" + version + "/" + rel, null);
      assertThat(r.statusCode()).as(rel + " is served (add it to PagesRoutes.ASSETS)").isEqualTo(200);
      assertThat(r.body().getBytes()).as(rel).isEqualTo(Files.readAllBytes(file));
      if (rel.endsWith(".js")) {
        Matcher imports = Pattern.compile("from '\\./([a-z0-9-]+\\.js)'").matcher(Files.readString(file));
        while (imports.find()) {
          assertThat(get("/assets/" + version + "/js/" + imports.group(1), null).statusCode())
              .as(rel + " imports " + imports.group(1)).isEqualTo(200);
        }
      }
    }
  }

  @Test
  void anOldVersionIsAnsweredButNotPinnedAndUnknownAssetsAreNotFound() {
    String version = version();
    HttpResponse<Buffer> old = get("/assets/0000000000000000/js/api.js", null);
    assertThat(old.statusCode()).isEqualTo(200);
    assertThat(old.getHeader("Cache-Control")).isEqualTo("no-cache");
    notFoundPage(get("/assets/" + version + "/js/nope.js", null));
    notFoundPage(get("/assets/" + version + "/admin/members.html", null));
    notFoundPage(get("/assets/" + version + "/login.html", null));
    notFoundPage(get("/assets/" + version + "/../login.html", null));
    notFoundPage(get("/assets/" + version, null));
  }

  @Test
  void theSignInPageOffersGitHubOnlyWhenTheSiteDoes() throws IOException {
    String html = page(get("/login", null), 200);
    assertThat(html).contains("data-github=\"false\"").contains("id=\"github-area\" hidden");
    // the page script is what shows the button, from the body's flag
    String script = new String(Files.readAllBytes(WEBROOT.resolve("js/login.js")), StandardCharsets.UTF_8);
    assertThat(script).contains("document.body.dataset.github === 'true'");
  }

  static String version() {
    Matcher m = ASSET.matcher(page(get("/login", null), 200));
    assertThat(m.find()).isTrue();
    return m.group(1);
  }
}
