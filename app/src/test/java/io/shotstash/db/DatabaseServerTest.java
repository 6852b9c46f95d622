package io.shotstash.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.config.Config;
import io.shotstash.testing.AppProcess;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The one rule that picks the database ({@link DatabaseServer}), in process: DATABASE_URL wins and is
 * never replaced, a server that answers at the default address is used as it is, a cluster node
 * never embeds, and otherwise the embedded PostgreSQL starts in {@code <data dir>/postgres}, comes
 * back on the same port and stops cleanly. (EmbeddedDatabaseIT does the same through the real jar.)
 */
class DatabaseServerTest {
  private Path dataDir;

  @BeforeEach
  void folder() throws IOException {
    dataDir = Files.createTempDirectory("database-server-test-");
  }

  @AfterEach
  void delete() throws IOException {
    try (Stream<Path> files = Files.walk(dataDir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private Config config(String... keyValues) {
    Map<String, String> env = new HashMap<>();
    env.put("SHOTSTASH_DATA_DIR", dataDir.toString());
    for (int i = 0; i < keyValues.length; i += 2) {
      env.put(keyValues[i], keyValues[i + 1]);
    }
    return Config.load(env);
  }

  @Test
  void aSetDatabaseUrlIsUsedAsItIsEvenWhenNothingAnswersThere() {
    Config config = config("DATABASE_URL", "postgresql://app@127.0.0.1:" + AppProcess.closedPort() + "/media");
    try (DatabaseServer server = DatabaseServer.choose(config, false)) {
      assertThat(server.embedded()).isFalse();
      assertThat(server.config()).isEqualTo(config);
    }
    assertThat(dataDir.resolve("postgres")).doesNotExist();
  }

  @Test
  void whateverAnswersAtTheDefaultAddressIsUsedNotTheEmbeddedServer() throws IOException {
    try (ServerSocket answering = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Config config = config("SHOTSTASH_DEFAULT_DATABASE_PORT", Integer.toString(answering.getLocalPort()));
      try (DatabaseServer server = DatabaseServer.choose(config, false)) {
        assertThat(server.embedded()).isFalse();
        assertThat(server.config().database().port()).isEqualTo(answering.getLocalPort());
      }
    }
    assertThat(dataDir.resolve("postgres")).doesNotExist();
  }

  @Test
  void aClusterNodeWithNothingAtTheDefaultAddressAsksForDatabaseUrl() {
    Config config = config("SHOTSTASH_DEFAULT_DATABASE_PORT", Integer.toString(AppProcess.closedPort()));
    assertThatThrownBy(() -> DatabaseServer.choose(config, true))
        .isInstanceOf(Database.UnavailableException.class)
        .hasMessageStartingWith("serve --cluster needs a PostgreSQL server that every node shares")
        .hasMessageContaining("set DATABASE_URL=");
    assertThat(dataDir.resolve("postgres")).doesNotExist();
  }

  @Test
  void withNothingAtTheDefaultAddressTheEmbeddedServerStartsKeepsItsPortAndStops() throws SQLException, IOException {
    Config config = config("SHOTSTASH_DEFAULT_DATABASE_PORT", Integer.toString(AppProcess.closedPort()));
    int port;
    try (DatabaseServer server = DatabaseServer.choose(config, false)) {
      assertThat(server.embedded()).isTrue();
      Config.DatabaseUrl url = server.config().database();
      port = url.port();
      assertThat(url.display()).isEqualTo("postgresql://postgres@127.0.0.1:" + port + "/shotstash");
      assertThat(Files.readString(dataDir.resolve("postgres.port")).trim()).isEqualTo(Integer.toString(port));
      Database.prepare(url);
      try (Connection c = Database.connect(url)) {
        assertThat(c.isValid(5)).isTrue();
      }
    }
    assertThat(dataDir.resolve("postgres").resolve("postmaster.pid")).as("stopped cleanly").doesNotExist();
    try (DatabaseServer again = DatabaseServer.choose(config, false)) {
      assertThat(again.config().database().port()).as("the recorded port").isEqualTo(port);
      assertThat(Database.prepare(again.config().database())).as("migrations already applied").isZero();
    }
  }
}
