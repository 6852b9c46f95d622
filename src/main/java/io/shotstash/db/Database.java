package io.shotstash.db;

import io.shotstash.app.Config;
import io.shotstash.app.Config.DatabaseUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.flywaydb.core.Flyway;

/**
 * Getting the database ready: create it when missing, apply the Flyway migrations, and build the
 * reactive pool. The first two are blocking JDBC calls: run them off the event loop.
 */
public final class Database {
  private Database() {}

  /** Raised when no PostgreSQL answers; its message says what to do, for the person at the console. */
  public static final class UnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnavailableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Creates the database if it does not exist, then migrates it. Blocking. Returns migrations applied. */
  public static int prepare(DatabaseUrl url) {
    createIfMissing(url);
    return migrate(url);
  }

  static void createIfMissing(DatabaseUrl url) {
    try (Connection c = connect(url.withDatabase("postgres"));
        PreparedStatement q = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
      q.setString(1, url.database());
      try (ResultSet rs = q.executeQuery()) {
        if (rs.next()) {
          return;
        }
      }
      try (Statement s = c.createStatement()) {
        // The name was validated by Config ([A-Za-z0-9_]), so quoting it is enough.
        s.execute("CREATE DATABASE \"" + url.database() + "\"");
      }
    } catch (SQLException e) {
      if ("42P04".equals(e.getSQLState())) {
        return; // created concurrently by another node: fine
      }
      throw unavailable(url, e);
    }
  }

  static int migrate(DatabaseUrl url) {
    Flyway flyway = Flyway.configure()
        .dataSource(url.jdbcUrl(), url.user(), url.password())
        .locations("classpath:db/migration")
        .loggers("slf4j")
        .load();
    return flyway.migrate().migrationsExecuted;
  }

  /** Whether every migration on the class path is applied (for /ready). Blocking. */
  public static boolean migrated(DatabaseUrl url) {
    Flyway flyway = Flyway.configure()
        .dataSource(url.jdbcUrl(), url.user(), url.password())
        .locations("classpath:db/migration")
        .loggers("slf4j")
        .load();
    return flyway.info().pending().length == 0;
  }

  public static Connection connect(DatabaseUrl url) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", url.user());
    if (url.password() != null) {
      p.setProperty("password", url.password());
    }
    p.setProperty("connectTimeout", "5");
    return DriverManager.getConnection(url.jdbcUrl(), p);
  }

  private static UnavailableException unavailable(DatabaseUrl url, SQLException e) {
    String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
    return new UnavailableException(String.join("\n",
        "PostgreSQL does not answer at " + url.host() + ":" + url.port() + " as user '" + url.user() + "' (" + why + ").",
        "Start it, for example:  pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
        "or point DATABASE_URL at a server you have, e.g. DATABASE_URL=postgresql://user@host:5432/shotstash"), e);
  }

  /** The reactive pool every verticle shares on this node. */
  public static Pool pool(Vertx vertx, Config config) {
    return build(vertx, new PoolOptions().setMaxSize(config.dbPoolSize()).setShared(true).setName("shotstash"),
        connectOptions(config));
  }

  /**
   * The two pools of one job-queue instance ({@code JobQueueVerticle}, one per event loop). They are
   * not shared: Vert.x opens a pool's connection on the event loop of the caller that needed it, so
   * when only the instance on one loop uses them, every connection lives on that loop and a query
   * and its answer never change threads. {@code durable} commits as usual; {@code asyncCommits}
   * commits asynchronously ({@code synchronous_commit = off}): COMMIT returns before the WAL reaches
   * the disk, so a crash of PostgreSQL (not of the app) may forget the last few hundred milliseconds
   * of its commits, never part of one and never out of order: a later durable commit flushes them
   * too. Only for writes whose loss a crash may undo without harm: the job queue's claims, lease
   * moves and progress (PIPELINE.md; docs/operations.md says what a crash of PostgreSQL can undo).
   * Close them when the instance stops.
   */
  public record QueuePools(Pool durable, Pool asyncCommits) {
    public Future<Void> close() {
      return Future.join(durable.close(), asyncCommits.close()).mapEmpty();
    }
  }

  /**
   * A fresh pair of {@link QueuePools}, each of at most {@code size} connections. Not shared (the
   * names only label their metrics, which add up the pools of every instance).
   */
  public static QueuePools queuePools(Vertx vertx, Config config, int size) {
    return new QueuePools(
        build(vertx, new PoolOptions().setMaxSize(size).setName("shotstash-queue"), connectOptions(config)),
        build(vertx, new PoolOptions().setMaxSize(size).setName("shotstash-queue-async-commit"),
            connectOptions(config).addProperty("synchronous_commit", "off")));
  }

  private static PgConnectOptions connectOptions(Config config) {
    DatabaseUrl url = config.database();
    PgConnectOptions connect = new PgConnectOptions()
        .setHost(url.host())
        .setPort(url.port())
        .setDatabase(url.database())
        .setUser(url.user())
        .setCachePreparedStatements(true); // off by default; the claim gains ~70% with it (STACK.md)
    if (url.password() != null) {
      connect.setPassword(url.password());
    }
    return connect;
  }

  private static Pool build(Vertx vertx, PoolOptions options, PgConnectOptions connect) {
    return PgBuilder.pool()
        .with(options)
        .connectingTo(connect)
        .using(vertx)
        .build();
  }
}
