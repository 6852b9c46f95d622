package io.shotstash.db;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.config.Config.DatabaseUrl;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/**
 * What a refused connection is told as, by the server's SQL state: one line naming the role or the
 * database and what to do. The states the test server can be made to answer (an unknown role, a
 * missing database, no answer) are also run for real in CommandLineIT and EmbeddedDatabaseIT; a wrong
 * password cannot be, since the test servers trust loopback.
 */
class DatabaseRefusalTest {
  private static final DatabaseUrl URL = new DatabaseUrl("db.example.org", 6543, "media", "app", "secret");

  private static String message(String state, String serverSays) {
    return Database.refused(URL, new SQLException(serverSays, state)).getMessage();
  }

  @Test
  void aWrongPasswordNamesTheRoleAndWhereToPutTheRightOne() {
    assertThat(message("28P01", "FATAL: password authentication failed for user \"app\""))
        .startsWith("PostgreSQL at db.example.org:6543 refuses the password of role 'app'")
        .contains("postgresql://app:<password>@db.example.org:6543/media")
        .doesNotContain("secret").doesNotContain("\n");
  }

  @Test
  void anUnknownRoleIsNamed() {
    assertThat(message("28000", "FATAL: role \"app\" does not exist"))
        .startsWith("PostgreSQL at db.example.org:6543 does not let role 'app' in (FATAL: role \"app\" does not exist)")
        .contains("createuser").doesNotContain("\n");
  }

  @Test
  void noAnswerSaysHowToStartOne() {
    assertThat(message("08001", "Connection to db.example.org:6543 refused."))
        .startsWith("PostgreSQL does not answer at db.example.org:6543 as user 'app'")
        .contains("DATABASE_URL").doesNotContain("\n");
  }

  @Test
  void anyOtherRefusalNamesTheRoleAndTheDatabase() {
    assertThat(message("53300", "FATAL: sorry, too many clients already\nDETAIL: more"))
        .isEqualTo("PostgreSQL at db.example.org:6543 refused role 'app' on database 'media' "
            + "(FATAL: sorry, too many clients already).");
  }
}
