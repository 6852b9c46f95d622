package io.shotstash.testing;

import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * A PostgreSQL database of its own for one test class (TESTING.md): created from template0 and
 * dropped afterwards. The project's migrations are applied by the app itself, or by {@link #migrate()}.
 *
 * <p>The server is chosen once per test JVM, in this order, so the suite runs on any machine:
 * <ol>
 *   <li>{@code SHOTSTASH_TEST_DATABASE_URL}, when set;</li>
 *   <li>the local server at 127.0.0.1:5432 (trust auth), when it answers;</li>
 *   <li>Testcontainers' PostgreSQL, when a Docker engine answers;</li>
 *   <li>else an embedded PostgreSQL (zonky's, as the app's own default), started once and shared
 *       by every test class of the JVM.</li>
 * </ol>
 * No choice ever skips a test: each one that is not there falls through to the next.
 */
public final class TestDatabase implements AutoCloseable {
  private static final String LOCAL = "postgresql://postgres@127.0.0.1:5432/postgres";
  /** The server of this JVM, chosen at the first {@link #create()}. */
  private static Config.DatabaseUrl shared;

  private final Config.DatabaseUrl server;
  private final Config.DatabaseUrl url;

  private TestDatabase(Config.DatabaseUrl server, String name) {
    this.server = server;
    this.url = server.withDatabase(name);
  }

  /** Creates a fresh, empty database (no migrations yet) on this JVM's server. */
  public static TestDatabase create() {
    return createOn(server());
  }

  /** Creates a fresh, empty database on the given server (a {@link PrivatePostgres}, for the fault tests). */
  public static TestDatabase createOn(Config.DatabaseUrl server) {
    String name = "shotstash_test_" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    try (Connection c = Database.connect(server); Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name + " TEMPLATE template0");
    } catch (SQLException e) {
      throw new IllegalStateException(noServerMessage(e), e);
    }
    return new TestDatabase(server, name);
  }

  /** The server this JVM's tests use (a maintenance database on it), chosen once. */
  public static synchronized Config.DatabaseUrl server() {
    if (shared == null) {
      shared = chooseServer();
    }
    return shared;
  }

  private static Config.DatabaseUrl chooseServer() {
    String configured = System.getenv("SHOTSTASH_TEST_DATABASE_URL");
    if (configured != null && !configured.isBlank()) {
      return parse(configured);
    }
    if (answers("127.0.0.1", 5432)) {
      return parse(LOCAL);
    }
    Config.DatabaseUrl container = testcontainers();
    if (container != null) {
      return container;
    }
    return embedded();
  }

  private static Config.DatabaseUrl parse(String url) {
    return Config.load(Map.of("DATABASE_URL", url)).database();
  }

  private static boolean answers(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 1_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Testcontainers' PostgreSQL when a Docker engine answers, else null (the next choice, never a skip). */
  private static Config.DatabaseUrl testcontainers() {
    if (!DockerClientFactory.instance().isDockerAvailable()) {
      return null;
    }
    PostgreSQLContainer container = new PostgreSQLContainer("postgres:17-alpine")
        .withUsername("postgres").withPassword("shotstash").withDatabaseName("postgres");
    container.start();
    Runtime.getRuntime().addShutdownHook(new Thread(container::stop, "test-postgres-container"));
    System.err.println("[TestDatabase] PostgreSQL in a Testcontainers container at " + container.getHost() + ":"
        + container.getMappedPort(5432));
    return new Config.DatabaseUrl(container.getHost(), container.getMappedPort(5432), "postgres", "postgres",
        "shotstash");
  }

  /**
   * An embedded PostgreSQL for this JVM: a throwaway cluster in a temporary folder (zonky's test
   * defaults, fsync off), stopped and deleted when the JVM exits. Package-private so its own test can
   * start one on a machine where the other choices answer.
   */
  static Config.DatabaseUrl embedded() {
    try {
      EmbeddedPostgres postgres = EmbeddedPostgres.builder().setPGStartupWait(Duration.ofSeconds(60)).start();
      System.err.println("[TestDatabase] embedded PostgreSQL on 127.0.0.1:" + postgres.getPort());
      return new Config.DatabaseUrl("127.0.0.1", postgres.getPort(), "postgres", "postgres", null);
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(noServerMessage(e), e);
    }
  }

  private static String noServerMessage(Exception e) {
    return "No PostgreSQL for the tests (" + e.getMessage() + "). The tests use, in this order: "
        + "SHOTSTASH_TEST_DATABASE_URL (a server where the user may create databases); the local server at "
        + "127.0.0.1:5432 with trust auth (.ci/run starts one); Testcontainers when a Docker engine answers; "
        + "else an embedded PostgreSQL, which as root needs user namespaces (`unshare -U`).";
  }

  public Config.DatabaseUrl url() {
    return url;
  }

  /** {@code postgresql://...} form for DATABASE_URL. */
  public String databaseUrl() {
    String password = url.password() == null ? "" : ":" + URLEncoder.encode(url.password(), StandardCharsets.UTF_8);
    return "postgresql://" + url.user() + password + "@" + url.host() + ":" + url.port() + "/" + url.database();
  }

  public void migrate() {
    Database.prepare(url);
  }

  /** Runs SQL directly (to move time or break things on purpose). */
  public void execute(String sql) {
    try (Connection c = Database.connect(url); Statement s = c.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The first column of the first row of a query, as a number. */
  public long number(String query) {
    String value = text(query);
    return value == null ? 0 : Long.parseLong(value);
  }

  /** How {@link #rows} reads one column of the current row ({@code ResultSet::getString}, {@code ::getObject}). */
  @FunctionalInterface
  public interface Column<T> {
    T read(ResultSet rs, int index) throws SQLException;
  }

  /** Every row of a query, each column read by {@code column}. */
  public <T> List<List<T>> rows(String query, Column<T> column) {
    try (Connection c = Database.connect(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      int columns = rs.getMetaData().getColumnCount();
      List<List<T>> out = new ArrayList<>();
      while (rs.next()) {
        List<T> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          row.add(column.read(rs, i));
        }
        out.add(row);
      }
      return out;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The first column of every row of a query, as text. */
  public List<String> texts(String query) {
    return rows(query, ResultSet::getString).stream().map(row -> row.get(0)).toList();
  }

  /** The first column of the first row of a query, as text (null when no row or SQL null). */
  public String text(String query) {
    try (Connection c = Database.connect(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    try (Connection c = Database.connect(server); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + url.database() + " WITH (FORCE)");
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
