package io.shotstash.http.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Teardown;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
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

/**
 * The members desk's compact table and its bulk votes in a real headless Chromium against the whole
 * app: 18 members, a second administrator (whom staff may not vote spam on) and two staff members
 * seeded through the real APIs; a staff member works the table at 1366×900 and at 390×844.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembersTableBrowserTest extends WithMembersDesk {
  static final String[][] MEMBERS = {
      {"ines-okafor", "Ines Okafor"}, {"tomas-reyes", "Tomás Reyes"}, {"ruth-abara", "Ruth Abara"},
      {"kenji-watanabe", "Kenji Watanabe"}, {"olga-ivanova", "Olga Ivanova"}, {"pavel-novak", "Pavel Novák"},
      {"amara-diallo", "Amara Diallo"}, {"lena-fischer", "Lena Fischer"}, {"yusuf-demir", "Yusuf Demir"},
      {"nora-lind", "Nora Lind"}, {"raj-patel", "Raj Patel"}, {"sofia-costa", "Sofia Costa"},
      {"emeka-obi", "Emeka Obi"}, {"hana-sato", "Hana Sato"}, {"marco-bianchi", "Marco Bianchi"},
      {"ayla-kaya", "Ayla Kaya"}, {"finn-murphy", "Finn Murphy"}, {"zoe-martin", "Zoe Martin"},
  };

  @BeforeAll
  static void start() {
    startSignedIn(Map.of());
    seed();
    browser = Browser.open(app, 1366, 900);
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(browser); // the app closes after this
  }

  // ---- seeding through the real APIs (21 writes by the administrator: under the 30 a minute) ----

  static void person(String slug, String fullName, String level) {
    ok(call(HttpMethod.POST, "/api/people", admin, new JsonObject().put("slug", slug).put("fullName", fullName)
        .put("email", slug + "@example.org").put("password", PASSWORD).put("accountLevel", level)), 201);
  }

  static void seed() {
    person("sam-staff", "Sam Staff", "staff");
    person("lee-staff", "Lee Staff", "staff");
    person("alex-admin", "Alex Admin", "administrator");
    for (String[] m : MEMBERS) {
      person(m[0], m[1], "user");
    }
  }

  // ---- page helpers ----

  static By result(String slug) {
    return By.cssSelector("#m-" + slug + " .col-result");
  }

  static void chooseView(String mode) {
    browser.find(By.cssSelector("label[for='view-" + mode + "']")).click();
    browser.until(d -> browser.find(By.id("view-" + mode)).isSelected());
  }

  static boolean tableShown() {
    return browser.find(By.id("members-table-wrap")).isDisplayed() && !browser.find(By.id("members")).isDisplayed();
  }

  /** The table rows wholly inside the window, the page scrolled to its top (the header in view). */
  static long rowsInViewport() {
    return (Long) browser.script("window.scrollTo(0, 0); const h = window.innerHeight;"
        + " return [...document.querySelectorAll('#members-table tr.member-row')].filter(r => {"
        + "   const b = r.getBoundingClientRect(); return b.height > 0 && b.top >= 0 && b.bottom <= h; }).length;");
  }

  @SuppressWarnings("unchecked")
  static List<String> tableSlugs() {
    return (List<String>) browser.script(
        "return [...document.querySelectorAll('#members-table tr.member-row')].map(e => e.dataset.slug);");
  }

  static void pick(String slug) {
    WebElement box = browser.find(By.cssSelector("#m-" + slug + " input.pick"));
    if (!box.isSelected()) {
      box.click();
    }
    browser.until(d -> browser.find(By.cssSelector("#m-" + slug + " input.pick")).isSelected());
  }

  /** Confirms the bulk dialog with this reasoning; checks that it names how many members. */
  static void confirmBulk(String title, String reasoning) {
    browser.visible(By.id("bulk-reasoning"));
    assertThat(browser.text(By.id("bulk-title"))).isEqualTo(title);
    browser.keys(reasoning, Keys.ENTER);
    browser.until(d -> !browser.find(By.id("bulk-dialog")).isDisplayed());
  }

  // ---- the tests ----

  @Test
  @Order(1)
  void theTableShowsFifteenRowsAt1366By900AndTheChoiceIsRememberedButNotInTheAddress() {
    openDesk("sam-staff");
    assertThat(browser.find(By.id("view-cards")).isSelected()).as("cards are the default").isTrue();
    browser.visible(By.cssSelector("#members li.member"));
    assertThat(browser.headingOrderProblems()).as("heading order, cards").isEmpty();
    browser.screenshot("members-cards-1366x900");

    chooseView("table");
    browser.until(d -> tableShown());
    assertThat(tableSlugs()).hasSize(MEMBERS.length + 4).contains("ines-okafor", "alex-admin", "ada");
    assertThat(browser.all(By.cssSelector("#members li.member"))).isEmpty();
    browser.screenshot("members-table-1366x900");
    // the header, the filters and the bar above the table stay in view: the page is at its top
    assertThat(rowsInViewport()).as("table rows wholly in the 1366×900 window").isGreaterThanOrEqualTo(15);
    assertThat(browser.text(row("ines-okafor"))).contains("Ines Okafor", "@ines-okafor", "No vote yet", "Spam",
        "Not spam", "Details");
    assertThat(browser.text(row("sam-staff"))).contains("This is you");
    assertThat(browser.find(By.cssSelector("#m-sam-staff input.pick")).isEnabled()).isFalse();
    assertThat(browser.headingOrderProblems()).as("heading order, table").isEmpty();

    // remembered by this browser, after a reload; the address does not carry it
    browser.driver.navigate().refresh();
    waitForRoster();
    browser.until(d -> tableShown());
    assertThat(browser.find(By.id("view-table")).isSelected()).isTrue();
    assertThat(browser.location()).isEqualTo("/admin/members");
    assertThat(browser.script("return window.localStorage.getItem('shotstash.membersDesk.view');"))
        .isEqualTo("table");
  }

  @Test
  @Order(2)
  void theKeysWorkOnTheTablesRows() {
    openDesk("sam-staff");
    browser.until(d -> tableShown());
    browser.find(By.tagName("h1")).click();
    browser.keys("j");
    List<String> slugs = tableSlugs();
    browser.until(d -> browser.attribute(row(slugs.get(0)), "class").contains("current"));
    browser.keys("j");
    String second = slugs.get(1);
    browser.until(d -> browser.attribute(row(second), "class").contains("current"));
    assertThat(browser.script("return document.activeElement.id;")).isEqualTo("m-" + second);

    // x selects the current row and again leaves it
    browser.keys("x");
    browser.until(d -> browser.find(By.cssSelector("#m-" + second + " input.pick")).isSelected());
    assertThat(browser.text(By.id("bulk-count"))).isEqualTo("1 member selected");
    browser.keys("x");
    browser.textIn(By.id("bulk-count"), "None selected");

    // Enter opens the detail under the row, with its own heading
    browser.keys(Keys.ENTER);
    browser.visible(By.id("m-" + second + "-detail"));
    browser.textIn(By.id("m-" + second + "-detail"), "No votes on this account.");
    assertThat(browser.text(By.cssSelector("#m-" + second + "-detail h3"))).startsWith("Details of ");
    assertThat(browser.headingOrderProblems()).as("heading order, a table detail open").isEmpty();
    browser.keys(Keys.ENTER);
    browser.until(d -> !browser.find(By.id("m-" + second + "-detail")).isDisplayed());

    // a row's quick Not spam votes at once, and the row is drawn again from the server's answer
    browser.find(By.cssSelector("#m-zoe-martin .vote-legit")).click();
    browser.textIn(By.cssSelector("#m-zoe-martin .col-vote"), "Not spam · Sam Staff");
    browser.textIn(By.id("members-status"), "Zoe Martin: not spam vote saved.");
    assertThat(browser.find(By.cssSelector("#m-zoe-martin .change")).isDisplayed()).isTrue();
    assertThat(member("zoe-martin").getJsonObject("latestVote").getString("verdict")).isEqualTo("legit");
  }

  @Test
  @Order(3)
  void bulkSpamOnThreeMembersOneRefusedByARuleShowsEachRowsResultAndTheServerAgrees() {
    openDesk("sam-staff");
    browser.until(d -> tableShown());
    pick("ines-okafor");
    pick("alex-admin");
    pick("tomas-reyes");
    assertThat(browser.text(By.id("bulk-count"))).isEqualTo("3 members selected");

    // Cancel sends nothing
    browser.find(By.id("bulk-spam")).click();
    browser.visible(By.id("bulk-reasoning"));
    browser.find(By.cssSelector("#bulk-dialog [data-cancel]")).click();
    browser.textIn(By.id("members-status"), "Nothing was sent.");
    assertThat(member("ines-okafor").getValue("latestVote")).isNull();

    browser.find(By.id("bulk-spam")).click();
    assertThat(browser.text(By.id("bulk-names"))).contains("Ines Okafor", "Alex Admin", "Tomás Reyes");
    confirmBulk("Mark 3 members as spam?", "Throwaway accounts from one sign-up wave.");
    browser.textIn(By.id("members-status"), "Spam votes: 2 saved, 1 refused.");
    assertThat(browser.text(result("ines-okafor"))).isEqualTo("Voted spam");
    assertThat(browser.text(result("tomas-reyes"))).isEqualTo("Voted spam");
    assertThat(browser.text(result("alex-admin"))).startsWith("Refused, protected account:")
        .contains("below your own level");
    // the rows were read again: the spam votes hide their members
    browser.textIn(By.cssSelector("#m-ines-okafor .col-vote"), "Spam · Sam Staff");
    assertThat(browser.text(By.cssSelector("#m-ines-okafor .col-vote"))).contains("hidden");
    assertThat(browser.attribute(row("ines-okafor"), "class")).contains("dimmed");
    // the refused row keeps its selection for another try; the saved ones leave it
    assertThat(browser.find(By.cssSelector("#m-alex-admin input.pick")).isSelected()).isTrue();
    assertThat(browser.find(By.cssSelector("#m-ines-okafor input.pick")).isSelected()).isFalse();
    assertThat(browser.text(By.id("bulk-count"))).isEqualTo("1 member selected");
    browser.screenshot("members-bulk-result-1366x900");

    for (String slug : List.of("ines-okafor", "tomas-reyes")) {
      JsonObject m = member(slug);
      assertThat(m.getJsonObject("latestVote").getString("verdict")).as(slug).isEqualTo("spam");
      assertThat(m.getJsonObject("latestVote").getJsonObject("voter").getString("slug")).isEqualTo("sam-staff");
      assertThat(m.getString("deactivatedBy")).isEqualTo("moderation");
    }
    JsonObject alex = member("alex-admin");
    assertThat(alex.getValue("latestVote")).as("the refused vote changed nothing").isNull();
    assertThat(alex.getValue("deletedAt")).isNull();
    JsonObject detail = ok(call(HttpMethod.GET, "/api/admin/members/ines-okafor", admin, null), 200)
        .getJsonObject("data");
    assertThat(detail.getJsonArray("votes")).hasSize(1);
    assertThat(detail.getJsonArray("votes").getJsonObject(0).getString("reasoning"))
        .isEqualTo("Throwaway accounts from one sign-up wave.");
  }

  @Test
  @Order(4)
  void inTableModeTheFiltersAndPageStayInTheAddressAndBackAndForwardWalkThem() {
    openDesk("sam-staff");
    browser.go("/admin/members?vote=any&perPage=5");
    waitForRoster();
    browser.until(d -> tableShown());
    browser.textIn(By.id("members-status"), "Page 1 of 5");
    assertThat(tableSlugs()).hasSize(5);

    browser.find(By.cssSelector("#members-pager button:last-child")).click();
    browser.textIn(By.id("members-status"), "Page 2 of 5");
    assertThat(browser.location()).isEqualTo("/admin/members?vote=any&page=2&perPage=5");
    assertThat(
        browser.script("return document.activeElement === document.querySelector('#members-table tr.member-row');"))
        .as("the new page's first row has the focus").isEqualTo(true);

    backAndForwardWalkThePages("5", "/admin/members?vote=any&perPage=5");

    voteFilter().selectByValue("spam");
    browser.until(d -> browser.location().equals("/admin/members?vote=spam&perPage=5"));
    browser.textIn(By.id("members-status"), "2 members match.");
    assertThat(tableSlugs()).containsExactlyInAnyOrder("ines-okafor", "tomas-reyes");
    browser.driver.navigate().back();
    browser.textIn(By.id("members-status"), "Page 2 of 5");
    assertThat(voteFilter().getFirstSelectedOption().getAttribute("value")).isEmpty();
    assertThat(tableShown()).as("still the table").isTrue();
  }

  @Test
  @Order(5)
  void atPhoneWidthTheTableStaysUsableAndBulkVotesWork() {
    browser.atSize(390, 844, () -> {
      openDesk("sam-staff");
      browser.go("/admin/members?vote=any"); // the members the bulk test voted on are in it
      waitForRoster();
      browser.until(d -> tableShown());
      assertThat(browser.overflowsSideways()).as("the page does not scroll sideways at 390 px").isFalse();
      WebElement box = browser.find(By.cssSelector("#m-ines-okafor input.pick"));
      assertThat(box.getRect().getX() + box.getRect().getWidth()).isLessThanOrEqualTo(390);
      assertThat(browser.find(By.cssSelector("#m-ines-okafor .col-name")).isDisplayed()).isTrue();
      assertThat(browser.find(By.cssSelector("#m-ines-okafor .col-slug")).isDisplayed()).as("no handle column")
          .isFalse();
      browser.screenshot("members-table-390x844");

      // the two spam votes of the bulk test, undone the same way
      browser.find(By.id("select-all")).click();
      assertThat(browser.text(By.id("bulk-count"))).isEqualTo(MEMBERS.length + 3 + " members selected");
      browser.find(By.id("select-all")).click();
      browser.textIn(By.id("bulk-count"), "None selected");
      pick("ines-okafor");
      pick("tomas-reyes");
      browser.find(By.id("bulk-legit")).click();
      confirmBulk("Mark 2 members as not spam?", "");
      browser.textIn(By.id("members-status"), "Not spam votes: 2 saved, 0 refused.");
      assertThat(browser.text(result("ines-okafor"))).isEqualTo("Voted not spam");
      assertThat(browser.overflowsSideways()).isFalse();
      // the result and the quick vote buttons are on screen, nothing to scroll sideways for
      for (By by : List.of(result("ines-okafor"), By.cssSelector("#m-ruth-abara .vote-spam"))) {
        WebElement e = browser.find(by);
        assertThat(e.isDisplayed()).as(by.toString()).isTrue();
        assertThat(e.getRect().getX() + e.getRect().getWidth()).as(by.toString()).isLessThanOrEqualTo(390);
      }
      assertThat(browser.script("const w = document.getElementById('members-table-wrap');"
          + " return w.scrollWidth <= w.clientWidth;")).as("the table fits its box").isEqualTo(true);
      browser.screenshot("members-bulk-result-390x844");
      assertThat(member("ines-okafor").getJsonObject("latestVote").getString("verdict")).isEqualTo("legit");
      assertThat(member("ines-okafor").getValue("deletedAt")).as("the spam hide is lifted").isNull();

      chooseView("cards");
      browser.visible(By.cssSelector("#members li.member"));
      assertThat(browser.overflowsSideways()).isFalse();
      browser.screenshot("members-cards-390x844");
      chooseView("table");
      browser.until(d -> tableShown());
    });
  }

  @Test
  @Order(6)
  void aRunThatMeetsTheWriteLimitStopsAndMarksTheRestNotSent() {
    browser.signOut();
    browser.signIn("lee-staff", PASSWORD, "/admin/members");
    waitForRoster();
    browser.until(d -> tableShown());
    pick("ruth-abara");
    pick("kenji-watanabe");
    pick("olga-ivanova");
    // Lee spends the account's 30 writes a minute on profile edits until the server says 429
    String lee = app.login("lee-staff", PASSWORD);
    int status = 0;
    for (int i = 0; i < 40 && status != 429; i++) {
      status = call(HttpMethod.PATCH, "/api/people/lee-staff", lee, new JsonObject().put("bio", "Edit " + i))
          .statusCode();
    }
    assertThat(status).as("the write limit answered").isEqualTo(429);

    browser.find(By.id("bulk-legit")).click();
    confirmBulk("Mark 3 members as not spam?", "");
    browser.textIn(By.id("members-status"),
        "Not spam votes: 0 saved, 1 refused, 2 not sent (write limit, try again in");
    List<String> order = tableSlugs().stream()
        .filter(s -> List.of("ruth-abara", "kenji-watanabe", "olga-ivanova").contains(s)).toList();
    assertThat(browser.text(result(order.get(0)))).startsWith("Not saved: write limit, try again in ")
        .endsWith(" s (rate_limited)");
    for (String slug : order.subList(1, 3)) {
      assertThat(browser.text(result(slug))).as(slug).startsWith("Not sent: write limit, try again in ");
    }
    browser.screenshot("members-bulk-limited-1366x900");
    for (String slug : order) {
      assertThat(member(slug).getValue("latestVote")).as(slug + " has no vote").isNull();
    }
  }
}
