package io.shotstash.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The fault tests' own server on a machine without Debian's postgresql package: made from the
 * binaries the app embeds (as root, in a user namespace), it starts, keeps its data across a
 * restart and stops. Started here on purpose, so this path is proven where Debian's binaries exist.
 */
class PrivatePostgresTest {
  @Test
  void aServerFromTheEmbeddedBinariesKeepsItsDataAcrossARestart() {
    try (PrivatePostgres pg = PrivatePostgres.startEmbedded(); TestDatabase db = TestDatabase.createOn(pg.url())) {
      db.execute("CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)");
      pg.restartServer();
      assertThat(db.number("SELECT n FROM kept")).isEqualTo(42);
    }
  }
}
