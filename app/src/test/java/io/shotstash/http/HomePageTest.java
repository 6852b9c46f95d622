package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.records.AccountLevel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The start page's text from people (a name, a slug, a Host header) can only ever be text. */
class HomePageTest {
  static final HomePage HOME = new HomePage("<title>{{title}}</title><main>{{main}}</main>");

  @Test
  void aNameIsEscapedNotMarkup() {
    String html = new String(HOME.member("<img src=x onerror=alert(1)> & \"Bob\" 'B'", "bob", AccountLevel.USER),
        StandardCharsets.UTF_8);
    assertThat(html).contains("Hello, &lt;img src=x onerror=alert(1)&gt; &amp; &quot;Bob&quot; &#39;B&#39;</h1>")
        .doesNotContain("<img");
  }

  @Test
  void aHostHeaderIsEscapedInTheSetupCommand() {
    String html = new String(HOME.setup("http://x\"><script>", false), StandardCharsets.UTF_8);
    assertThat(html).contains("curl -X POST http://x&quot;&gt;&lt;script&gt;/api/setup").doesNotContain("<script>")
        .contains("<code>First-run setup:</code>");
  }

  @Test
  void theMembersDeskIsNamedToStaffAndAdministratorsOnly() {
    for (AccountLevel level : AccountLevel.values()) {
      String html = new String(HOME.member("N", "n", level), StandardCharsets.UTF_8);
      assertThat(html.contains("/admin/members")).as(level.wire()).isEqualTo(level.atLeast(AccountLevel.STAFF));
      assertThat(html).contains("href=\"/admin/jobs\"").contains("href=\"/graphiql\"");
    }
  }
}
