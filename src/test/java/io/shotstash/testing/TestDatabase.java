package io.shotstash.testing;

import io.shotstash.app.Config;
import io.shotstash.db.Database;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A PostgreSQL database of its own for one test class (TESTING.md): created from template0 on the
 * server named by SHOTSTASH_TEST_DATABASE_URL, else the local server at 127.0.0.1:5432, and
 * dropped afterwards. The project's migrations are applied by the app itself, or by {@link #migrate()}.
 */
public final class TestDatabase implements AutoCloseable {
  private static final String LOCAL = "postgresql://postgres@127.0.0.1:5432/postgres";

  private final Config.DatabaseUrl server;
  private final Config.DatabaseUrl url;

  private TestDatabase(Config.DatabaseUrl server, String name) {
    this.server = server;
    this.url = server.withDatabase(name);
  }

  /** Creates a fresh, empty database (no migrations yet). */
  public static TestDatabase create() {
    return createOn(serverUrl());
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

  private static Config.DatabaseUrl serverUrl() {
    String configured = System.getenv("SHOTSTASH_TEST_DATABASE_URL");
    return Config.load(Map.of("DATABASE_URL", configured != null ? configured : LOCAL)).database();
  }

  private static String noServerMessage(SQLException e) {
    return "No PostgreSQL for the tests (" + e.getMessage() + "). Either set SHOTSTASH_TEST_DATABASE_URL to a server "
        + "where the user may create databases, or start the local one at 127.0.0.1:5432 (trust auth), e.g. "
        + "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` (.ci/run does this), "
        + "or run on a machine with a Docker engine and point SHOTSTASH_TEST_DATABASE_URL at a container.";
  }

  public Config.DatabaseUrl url() {
    return url;
  }

  /** {@code postgresql://...} form for DATABASE_URL. */
  public String databaseUrl() {
    return "postgresql://" + url.user() + "@" + url.host() + ":" + url.port() + "/" + url.database();
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

  /** The first column of the first row of a query, as text (null when no row or SQL null). */
  public String text(String query) {
    try (Connection c = Database.connect(url); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
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
