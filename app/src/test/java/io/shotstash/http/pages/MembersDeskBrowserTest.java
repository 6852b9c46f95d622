package io.shotstash.http.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Teardown;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
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
 * The members desk in a real headless Chromium against the whole app: data seeded through the real
 * APIs (accounts, bios, a project, an agent with a grant and its staged vote, a bounce, a purge), a
 * GitHub sign-up through the sign-in page, and a staff member working the desk with the keyboard.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MembersDeskBrowserTest extends WithMembersDesk {
  static final String BOUNCE_SECRET = "bounce-secret-0123456789-0123456789";
  static final String STAGED_REASONING = "Business name as the member name and a promotional pharmacy link in the bio.";

  static FakeGitHub github;

  @BeforeAll
  static void start() {
    github = FakeGitHub.start(90210, "octo-newbie", "Octo Newbie", "octo@newbie.example.com",
        Instant.now().minus(5, ChronoUnit.DAYS));
    startSignedIn(Map.of("SHOTSTASH_GITHUB_API_URL", github.url(), "SHOTSTASH_GITHUB_OAUTH_URL", github.url(),
        "SHOTSTASH_GITHUB_CLIENT_ID", "desk-client", "SHOTSTASH_GITHUB_CLIENT_SECRET", "desk-secret",
        "SHOTSTASH_BOUNCE_SECRET", BOUNCE_SECRET, "SHOTSTASH_PURGE_SWEEP_SECONDS", "86400"));
    seed();
    browser = Browser.open(app);
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(browser, github); // the app closes after this
  }

  // ---- seeding through the real APIs ----

  static void person(String slug, String fullName, String email, String level, String bio) {
    ok(call(HttpMethod.POST, "/api/people", admin, new JsonObject().put("slug", slug).put("fullName", fullName)
        .put("email", email).put("password", PASSWORD).put("accountLevel", level)), 201);
    if (bio != null) {
      ok(call(HttpMethod.PATCH, "/api/people/" + slug, admin, new JsonObject().put("bio", bio)), 200);
    }
  }

  static void seed() {
    person("sam-staff", "Sam Staff", "sam@shotstash.example.org", "staff", "Moderates the community.");
    person("spam-gone", "Pill Palace", "deals@pill-palace.example.com", "user", null);
    ok(call(HttpMethod.POST, "/api/people/spam-gone/purge", admin, new JsonObject()
        .put("reason", "Spam account: pharmacy offers in the bio and in two projects.").put("spam", true)), 200);
    person("mia-chen", "Mia Chen", "mia.chen@example.org", "user",
        "Transit maps and bus data. I keep the stop finder running and like *open data*.");
    String mia = app.login("mia-chen", PASSWORD);
    ok(call(HttpMethod.POST, "/api/projects", mia, new JsonObject().put("title", "Stop Finder")
        .put("summary", "Find the next bus stop.")), 201);
    person("bo-lindqvist", "Bo Lindqvist", "bo@mailbox.example.net", "user", null);
    ok(call(HttpMethod.POST, "/api/_webhooks/email-bounce", BOUNCE_SECRET, new JsonObject()
        .put("email", "bo@mailbox.example.net").put("type", "hard")), 200);
    person("cheap-pills", "Cheap Pills Ltd", "sales@pills-deals.example.com", "user",
        "Discount pills, fast shipping: https://pills-deals.example.com/shop");
    person("dan-seo", "Rank Boost Agency", "offers@rankboost.example.com", "user",
        "We put your site on page one. Visit www.rankboost.example.com today!");
    person("gone-soon", "Gwen Soon", "gwen@soon.example.org", "user", "Here for a day.");

    ok(call(HttpMethod.POST, "/api/admin/agents", admin, new JsonObject().put("slug", "triage-bot")
        .put("fullName", "Triage Bot")), 201);
    String agent = ok(call(HttpMethod.POST, "/api/admin/agents/triage-bot/grants", admin, new JsonObject()
        .put("scopes", new JsonArray().add("moderation:read").add("moderation:vote"))), 201)
        .getJsonObject("data").getString("token");
    ok(call(HttpMethod.POST, "/api/admin/members/cheap-pills/vote", agent, new JsonObject().put("verdict", "spam")
        .put("reasoning", STAGED_REASONING).put("flags", new JsonArray().add("business-name").add("bio-promo-link"))),
        200);
  }

  // ---- page helpers ----

  /** Moves the keyboard's current row with j (down) or k (up) until it is {@code slug}. */
  static void moveTo(String slug) {
    browser.find(By.tagName("h1")).click(); // the focus leaves the filters: keys go to the page
    List<?> slugs = (List<?>) browser.script("return [...document.querySelectorAll('#members li.member')]"
        + ".map(e => e.dataset.slug);");
    int target = slugs.indexOf(slug);
    assertThat(target).as(slug + " is on the page: " + slugs).isNotNegative();
    for (int i = 0; i <= slugs.size() * 2; i++) {
      Object current = browser.script("const e = document.querySelector('#members li.member.current');"
          + " return e ? e.dataset.slug : null;");
      int at = slugs.indexOf(current);
      if (at == target) {
        return;
      }
      browser.keys(at < target ? "j" : "k");
    }
    throw new AssertionError("j and k never reached " + slug);
  }

  // ---- the tests ----

  @Test
  @Order(1)
  void anonymousCallersAndMembersBelowStaffGetTheNotFoundPage() {
    browser.go("/admin/members");
    assertThat(browser.driver.getTitle()).isEqualTo("Not found · Shotstash");
    assertThat(browser.text(By.tagName("h1"))).isEqualTo("Page not found");

    // a new member signs up with GitHub from the sign-in page, and comes back to the desk's address
    browser.go("/login?return=/admin/members");
    WebElement gitHub = browser.visible(By.id("github-signin"));
    assertThat(gitHub.getAttribute("href")).endsWith("/api/auth/github/start?return=%2Fadmin%2Fmembers");
    browser.screenshot("sign-in");
    gitHub.click();
    browser.until(d -> browser.location().equals("/admin/members"));
    assertThat(browser.driver.manage().getCookieNamed("shotstash_session")).isNotNull();
    assertThat(browser.driver.getTitle()).isEqualTo("Not found · Shotstash");
    assertThat(browser.text(By.tagName("h1"))).isEqualTo("Page not found");
    browser.screenshot("not-found");

    // the jobs view is theirs, without the desk in the menu; then they sign out
    browser.go("/admin/jobs");
    browser.textIn(By.id("who"), "Signed in as Octo Newbie (@octo-newbie, user)");
    assertThat(browser.all(By.cssSelector("header nav a[href='/admin/members']"))).isEmpty();
    browser.signOut();
    assertThat(browser.driver.manage().getCookieNamed("shotstash_session")).isNull();
  }

  @Test
  @Order(2)
  void staffFilterToNoVoteYetVoteSpamWithTheKeyboardThenChangeToNotSpam() {
    browser.signIn("sam-staff", PASSWORD, "/admin/members");
    waitForRoster();
    Select vote = voteFilter();
    assertThat(vote.getFirstSelectedOption().getAttribute("value")).as("no vote yet is the default").isEqualTo("none");
    vote.selectByValue("spam");
    browser.textIn(By.id("members-status"), "No member matches these filters.");
    vote.selectByValue("none");
    waitForRoster();
    browser.visible(row("dan-seo"));
    assertThat(browser.location()).isEqualTo("/admin/members");

    // the staff member's own row cannot be voted on
    assertThat(browser.text(row("sam-staff"))).contains("This is you");
    assertThat(
        browser.script("return [...document.querySelectorAll('#m-sam-staff .vote button')].map(b => b.disabled);"))
        .isEqualTo(List.of(true, true));

    assertThat(browser.attribute(row("dan-seo"), "class")).contains("tint-amber");
    assertThat(browser.text(row("dan-seo"))).contains("Rank Boost Agency", "@dan-seo", "never signed in",
        "1 link in bio",
        "Email does not match name", "No avatar", "Signed up", "offers@rankboost.example.com", "No vote yet");

    moveTo("dan-seo");
    browser.keys("s");
    browser.visible(By.id("spam-reasoning"));
    assertThat(browser.text(By.id("spam-name"))).isEqualTo("Rank Boost Agency");
    browser.keys("Business name and an advertising link in the bio.", Keys.ENTER);
    browser.until(d -> browser.attribute(row("dan-seo"), "class").contains("dimmed"));
    browser.textIn(row("dan-seo"), "Hidden by Sam Staff");
    assertThat(browser.text(By.cssSelector("#m-dan-seo .verdict.spam"))).startsWith("Spam · by Sam Staff · ");
    assertThat(browser.find(By.id("spam-dialog")).isDisplayed()).isFalse();
    JsonObject afterSpam = member("dan-seo");
    assertThat(afterSpam.getJsonObject("latestVote").getString("verdict")).isEqualTo("spam");
    assertThat(afterSpam.getString("deactivatedBy")).isEqualTo("moderation");
    Path shot = browser.screenshot("members-desk");
    assertThat(shot).exists();

    // voted rows keep their verdict until Change; then n votes not spam at once
    browser.keys("n");
    browser.textIn(By.id("members-status"), "already has a vote");
    browser.find(By.cssSelector("#m-dan-seo .change")).click();
    browser.visible(By.cssSelector("#m-dan-seo .vote-legit"));
    browser.keys("n");
    browser.until(d -> !browser.attribute(row("dan-seo"), "class").contains("dimmed"));
    browser.textIn(By.cssSelector("#m-dan-seo .verdict"), "Not spam · by Sam Staff");
    assertThat(browser.text(row("dan-seo"))).doesNotContain("Hidden by");
    JsonObject afterLegit = member("dan-seo");
    assertThat(afterLegit.getJsonObject("latestVote").getString("verdict")).isEqualTo("legit");
    assertThat(afterLegit.getString("deletedAt")).isNull();
  }

  @Test
  @Order(3)
  void anAgentsStagedVoteShowsAsStagedWithItsReasoningAndThePurgeDate() {
    openDesk("sam-staff");
    JsonObject row = member("cheap-pills");
    String purgeAfter = row.getString("purgeAfter");
    assertThat(purgeAfter).isNotNull();
    browser.visible(By.cssSelector("#m-cheap-pills .staged-vote"));
    assertThat(browser.text(By.cssSelector("#m-cheap-pills .staged-vote"))).contains("Staged", "Spam",
        "by Triage Bot (agent)", "“" + STAGED_REASONING + "”",
        "business-name", "bio-promo-link", "Purged in", purgeAfter.substring(0, 10), "unless a person votes");
    assertThat(browser.attribute(row("cheap-pills"), "class")).contains("dimmed");
    assertThat(browser.text(row("cheap-pills"))).contains("Hidden by Triage Bot (agent)");
    // a staged vote still waits for a person: the buttons are there
    assertThat(
        browser.script("return [...document.querySelectorAll('#m-cheap-pills .vote button')].map(b => b.disabled);"))
        .isEqualTo(List.of(false, false));
    // and the bounced member is tinted red
    assertThat(browser.attribute(row("bo-lindqvist"), "class")).contains("tint-red");
    assertThat(browser.text(row("bo-lindqvist"))).contains("Email bounced (hard)");
    // the GitHub newbie: an amber GitHub badge
    By badge =
        By.xpath("//li[@id='m-octo-newbie']//span[contains(@class,'badge') and contains(., 'GitHub @octo-newbie')]");
    assertThat(browser.attribute(badge, "class")).contains("amber");
    assertThat(browser.text(badge)).contains("5 d old", "0 repos", "0 followers");
    assertThat(browser.text(row("octo-newbie"))).contains("signed in 1×");
  }

  @Test
  @Order(4)
  void enterExpandsTheDetailWithFootprintAndVotes() {
    openDesk("sam-staff");
    moveTo("mia-chen");
    browser.keys(Keys.ENTER);
    browser.visible(By.id("m-mia-chen-detail"));
    browser.textIn(By.id("m-mia-chen-detail"), "Stop Finder");
    assertThat(browser.text(By.id("m-mia-chen-detail"))).contains("Transit maps and bus data.", "Memberships",
        "No votes on this account.");
    assertThat(browser.attribute(By.cssSelector("#m-mia-chen-detail a[href$='/api/projects/stop-finder']"), "href"))
        .isNotEmpty();
    assertThat(browser.attribute(By.cssSelector("#m-mia-chen .expand"), "aria-expanded")).isEqualTo("true");
    assertThat(browser.text(row("mia-chen"))).contains("1 membership", "signed in 1×");

    moveTo("cheap-pills");
    browser.keys(Keys.ENTER);
    browser.textIn(By.id("m-cheap-pills-detail"), "Agent");
    assertThat(browser.text(By.id("m-cheap-pills-detail"))).contains("Spam by Triage Bot", STAGED_REASONING,
        "agent, business-name, bio-promo-link");
    assertThat(browser.headingOrderProblems()).as("heading order on the desk, a detail open").isEmpty();
    browser.screenshot("members-desk-detail");
    browser.keys(Keys.ENTER);
    browser.until(d -> !browser.find(By.id("m-cheap-pills-detail")).isDisplayed());
  }

  @Test
  @Order(5)
  void aRefusedVoteShowsItsMessageAndTheRowIsReadAgain() {
    openDesk("sam-staff");
    browser.visible(row("gone-soon"));
    // an administrator purges the member while the desk still shows the row
    ok(call(HttpMethod.POST, "/api/people/gone-soon/purge", admin, new JsonObject().put("reason", "Test account.")
        .put("spam", false)), 200);
    moveTo("gone-soon");
    browser.keys("n");
    browser.textIn(By.id("members-status"), "Gwen Soon: the vote was not saved.");
    browser.until(d -> d.findElements(row("gone-soon")).isEmpty());
    assertThat(browser.text(By.id("members-status"))).contains("@gone-soon is no longer on the roster");
    assertThat(browser.attribute(By.id("members-status"), "class")).contains("error");
  }

  @Test
  @Order(6)
  void theEmailDomainButtonSearchesThatDomain() {
    openDesk("sam-staff");
    browser.find(By.cssSelector("#m-bo-lindqvist .domain")).click();
    browser.until(d -> browser.all(By.cssSelector("#members li.member")).size() == 1);
    assertThat(browser.attribute(By.id("f-q"), "value")).isEqualTo("@mailbox.example.net");
    assertThat(browser.location()).isEqualTo("/admin/members?q=%40mailbox.example.net");
    browser.find(By.id("f-q")).clear();
    browser.find(By.id("f-q")).sendKeys(Keys.ENTER);
    browser.until(d -> browser.all(By.cssSelector("#members li.member")).size() > 1);
  }

  @Test
  @Order(7)
  void thePurgeLogListsPurgesAndStaffLiftABlock() {
    openDesk("sam-staff");
    browser.find(By.id("tab-purges")).click();
    browser.textIn(By.id("purges-status"), "1 purge");
    assertThat(browser.text(By.cssSelector("#purges li.purge"))).contains("@spam-gone", "Pill Palace",
        "by Ada Admin (person)",
        "“Spam account: pharmacy offers in the bio and in two projects.”", "Sign-in blocked");
    assertThat(browser.location()).isEqualTo("/admin/members#purge-log");
    assertThat(browser.headingOrderProblems()).as("heading order on the purge log").isEmpty();
    browser.screenshot("members-purge-log");

    browser.find(By.cssSelector("#purges li.purge .unblock")).click();
    browser.visible(By.id("unblock-reason"));
    browser.keys("Asked to start over.", Keys.ENTER);
    browser.textIn(By.cssSelector("#purges li.purge"), "Sign-in block lifted by @sam-staff");
    browser.textIn(By.id("purges-status"), "@spam-gone may sign in again.");
    JsonArray log = ok(call(HttpMethod.GET, "/api/admin/spam-purges", admin, null), 200).getJsonArray("data");
    assertThat(log.getJsonObject(0).getString("unblockedBySlug")).isEqualTo("sam-staff");

    // the filters: lifted blocks only, then blocks in force only
    new Select(browser.find(By.id("p-blocking"))).selectByValue("true");
    browser.textIn(By.id("purges-status"), "No purge matches these filters.");
    new Select(browser.find(By.id("p-blocking"))).selectByValue("false");
    browser.textIn(By.id("purges-status"), "1 purge");
    // the arrow keys move between the tabs
    browser.find(By.id("tab-purges")).sendKeys(Keys.ARROW_LEFT);
    browser.until(d -> browser.find(By.id("panel-members")).isDisplayed());
    assertThat(browser.attribute(By.id("tab-members"), "aria-selected")).isEqualTo("true");
  }

  @Test
  @Order(8)
  void theDeskWorksAt360PixelsWide() {
    browser.atSize(360, 800, () -> {
      openDesk("sam-staff");
      browser.visible(row("mia-chen"));
      assertThat(browser.overflowsSideways()).as("nothing scrolls sideways at 360 px").isFalse();
      Path shot = browser.screenshot("members-desk-360");
      assertThat(Files.exists(shot)).isTrue();
      // the vote buttons are on screen and usable
      WebElement spam = browser.find(By.cssSelector("#m-mia-chen .vote-spam"));
      assertThat(spam.isDisplayed()).isTrue();
      assertThat(spam.getRect().getX() + spam.getRect().getWidth()).isLessThanOrEqualTo(360);
      browser.find(By.id("tab-purges")).click();
      browser.textIn(By.id("purges-status"), "purge");
      assertThat(browser.overflowsSideways()).isFalse();
    });
  }

  @Test
  @Order(9)
  void theViewLivesInTheAddressBackAndForwardWalkItAndANewPageStartsAtItsFirstRow() {
    openDesk("sam-staff");
    // a link reproduces a view: every member, two a page
    browser.go("/admin/members?vote=any&perPage=2");
    waitForRoster();
    browser.textIn(By.id("members-status"), "Page 1 of ");
    assertThat(voteFilter().getFirstSelectedOption().getAttribute("value")).isEmpty();
    assertThat(browser.all(By.cssSelector("#members li.member"))).hasSize(2);

    // Next page: the new page's first row is at the top of the window, with the focus
    browser.find(By.cssSelector("#members-pager button:last-child")).click();
    browser.textIn(By.id("members-status"), "Page 2 of ");
    assertThat(browser.location()).isEqualTo("/admin/members?vote=any&page=2&perPage=2");
    // at the top of the window, or as near as the page can scroll (two rows make a short page)
    Object focused = browser.script("const e = document.activeElement; const first ="
        + " document.querySelector('#members li.member'); const top = first.getBoundingClientRect().top;"
        + " const end = window.scrollY + window.innerHeight >= document.scrollingElement.scrollHeight - 2;"
        + " return [e === first, Math.abs(top) <= 2 || (top > 0 && end)];");
    assertThat(focused).as("the first row has the focus, at the top").isEqualTo(java.util.List.of(true, true));

    // Back and Forward walk the pages; a filter change is a step too
    backAndForwardWalkThePages("", "/admin/members?vote=any&perPage=2");
    voteFilter().selectByValue("spam");
    browser.until(d -> browser.location().equals("/admin/members?vote=spam&perPage=2"));
    browser.driver.navigate().back();
    browser.textIn(By.id("members-status"), "Page 2 of ");
    assertThat(voteFilter().getFirstSelectedOption().getAttribute("value")).isEmpty();
  }
}
