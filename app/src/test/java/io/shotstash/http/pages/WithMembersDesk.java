package io.shotstash.http.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.JsonApi;
import io.shotstash.testing.WithSignedInApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.Select;

/**
 * What the members desk's browser tests share: one password for the members they seed through the
 * real APIs, the administrator's calls that seed and read them, and the desk in {@link #browser}.
 * The subclass starts the app, seeds and opens the browser in its {@code @BeforeAll}, and closes the
 * browser in its {@code @AfterAll}.
 */
abstract class WithMembersDesk extends WithSignedInApp {
  static final String PASSWORD = "member password 123";

  static Browser browser;

  // ---- seeding through the real APIs ----

  static HttpResponse<Buffer> call(HttpMethod method, String path, String token, JsonObject body) {
    return new JsonApi(app).call(method, path, token, body);
  }

  /** Asserts the status (only: the envelopes are the API tests') and answers the body. */
  static JsonObject ok(HttpResponse<Buffer> r, int status) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(status);
    return r.bodyAsJsonObject();
  }

  /** The member as the desk's API answers it to the administrator. */
  static JsonObject member(String slug) {
    return ok(call(HttpMethod.GET, "/api/admin/members/" + slug, admin, null), 200).getJsonObject("data");
  }

  // ---- page helpers ----

  static By row(String slug) {
    return By.id("m-" + slug);
  }

  static void waitForRoster() {
    browser.until(d -> browser.text(By.id("members-status")).contains("match"));
  }

  /** The filter on the votes (its value is empty for any vote). */
  static Select voteFilter() {
    return new Select(browser.find(By.id("f-vote")));
  }

  /**
   * From page 2 of the roster: Back shows page 1 again, at {@code firstPage}, and Forward page 2: each
   * page is a step in the history. {@code pages} is how many the status line says there are ("" when
   * the test does not say).
   */
  static void backAndForwardWalkThePages(String pages, String firstPage) {
    browser.driver.navigate().back();
    browser.textIn(By.id("members-status"), "Page 1 of " + pages);
    assertThat(browser.location()).isEqualTo(firstPage);
    browser.driver.navigate().forward();
    browser.textIn(By.id("members-status"), "Page 2 of " + pages);
  }

  /** Opens the desk as {@code login} (signing in on the sign-in page first when no one is). */
  static void openDesk(String login) {
    if (browser.driver.manage().getCookieNamed("shotstash_session") == null) {
      browser.signIn(login, PASSWORD, "/admin/members");
    } else {
      browser.go("/admin/members");
    }
    waitForRoster();
  }
}
