package io.shotstash.http;

import io.shotstash.publicdata.records.AccountLevel;
import java.nio.charset.StandardCharsets;

/**
 * What {@code GET /} shows, built on the server from who is asking, so the page needs no script:
 * <ul>
 *   <li>before first-run setup: how to create the first administrator, and where the setup token is
 *       (the app's log, or {@code SHOTSTASH_SETUP_TOKEN});</li>
 *   <li>to anyone not signed in: a way to sign in;</li>
 *   <li>to a signed-in person: the screens they can use. The members desk is named only to staff
 *       and administrators, as it answers 404 to everyone else.</li>
 * </ul>
 * Text that comes from people (a name, a slug, the request's host) is escaped; nothing else here
 * varies.
 */
final class HomePage {
  private final String template;

  /** {@code template} is {@code index.html} with its assets already filled, {@code {{title}}} and {@code {{main}}} left. */
  HomePage(String template) {
    this.template = template;
  }

  /** Before setup. {@code origin} is this site as the browser sees it; {@code tokenSet}: SHOTSTASH_SETUP_TOKEN is set. */
  byte[] setup(String origin, boolean tokenSet) {
    String where = tokenSet
        ? "<p>The setup token is the value of <code>SHOTSTASH_SETUP_TOKEN</code> in the app's settings.</p>\n"
        : "<p>The setup token was printed in the app's log when it started, on the line that begins with "
            + "<code>First-run setup:</code>. A new token is printed each time the app starts until setup is done.</p>\n";
    return fill("Finish setup", "<section aria-labelledby=\"home-title\">\n"
        + "<h1 id=\"home-title\">Finish setting up Shotstash</h1>\n"
        + "<p>Nobody can sign in yet: create the first administrator with the setup token.</p>\n"
        + where
        + "<pre><code>curl -X POST " + escape(origin) + "/api/setup -H \"X-Setup-Token: &lt;setup token&gt;\" \\\n"
        + "  -H 'Content-Type: application/json' \\\n"
        + "  -d '{\"slug\":\"ada\",\"fullName\":\"Ada Lovelace\",\"email\":\"ada@example.org\",\"password\":\"a long password\"}'"
        + "</code></pre>\n"
        + "<p>Then <a href=\"/login?return=/\">sign in</a> with that slug (or email) and password.</p>\n"
        + "</section>");
  }

  /** Nobody signed in (setup is done). */
  byte[] anonymous() {
    return fill("Welcome", "<section aria-labelledby=\"home-title\">\n"
        + "<h1 id=\"home-title\">Shotstash</h1>\n"
        + "<p>The media library, its processing pipeline and the desks of the people who run this site.</p>\n"
        + "<p class=\"home-actions\"><a class=\"button\" href=\"/login?return=/\">Sign in</a></p>\n"
        + "</section>");
  }

  /** A signed-in person, with the screens their level reaches. */
  byte[] member(String fullName, String slug, AccountLevel level) {
    StringBuilder desks = new StringBuilder();
    String jobs = switch (level) {
      case ADMINISTRATOR ->
        "folders, files and their jobs; queue and cancel jobs; the workers and the pipeline's figures.";
      case USER -> "folders, files, their processed versions and jobs, to look at and download.";
      default -> "folders, files and their jobs; queue and cancel jobs.";
    };
    desks.append("<li><a href=\"").append(PagesRoutes.JOBS_PATH).append("\">Jobs</a>: ").append(jobs).append("</li>\n");
    if (level.atLeast(AccountLevel.STAFF)) {
      desks.append("<li><a href=\"/admin/members\">Members desk</a>: review new members, vote spam or not spam, ")
          .append("read the spam-purge log.</li>\n");
    }
    desks.append("<li><a href=\"/graphiql\">GraphiQL</a>: try the GraphQL API as yourself.</li>\n");
    return fill("Home", "<section aria-labelledby=\"home-title\">\n"
        + "<h1 id=\"home-title\">Hello, " + escape(fullName) + "</h1>\n"
        + "<p class=\"keys\" id=\"home-who\">Signed in as @" + escape(slug) + " (" + level.wire() + ").</p>\n"
        + "<ul class=\"desks\">\n" + desks + "</ul>\n"
        + "<p class=\"keys\">To sign out or switch accounts, go to the <a href=\"/login\">sign-in page</a>.</p>\n"
        + "</section>");
  }

  private byte[] fill(String title, String main) {
    return template.replace("{{title}}", title).replace("{{main}}", main).getBytes(StandardCharsets.UTF_8);
  }

  /** Text as HTML text or attribute value: the five characters that could end either. */
  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
