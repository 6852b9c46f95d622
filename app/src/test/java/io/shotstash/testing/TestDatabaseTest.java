package io.shotstash.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.config.Config;
import org.junit.jupiter.api.Test;

/**
 * The last of the suite's choices of server (TESTING.md): the embedded PostgreSQL that a machine
 * with no local server and no Docker engine falls back to. Started here on purpose, so the fallback
 * is proven on machines where an earlier choice answers.
 */
class TestDatabaseTest {
  @Test
  void theEmbeddedServerHoldsATestDatabaseOfItsOwnWithTheMigrations() {
    Config.DatabaseUrl embedded = TestDatabase.embedded();
    assertThat(embedded.host()).isEqualTo("127.0.0.1");
    try (TestDatabase db = TestDatabase.createOn(embedded)) {
      db.migrate();
      assertThat(db.number("SELECT count(*) FROM flyway_schema_history WHERE success")).isPositive();
      assertThat(db.text("SELECT current_database()")).isEqualTo(db.url().database());
      assertThat(db.databaseUrl()).isEqualTo("postgresql://postgres@127.0.0.1:" + embedded.port() + "/"
          + db.url().database());
    }
  }
}
