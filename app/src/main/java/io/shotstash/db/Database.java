package io.shotstash.db;

import io.shotstash.config.Config;
import io.shotstash.config.Config.DatabaseUrl;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;

/**
 * Getting the database ready: create it when missing, apply the Flyway migrations, and build the
 * reactive pool. The first two are blocking JDBC calls: run them off the event loop.
 */
public final class Database {
  private Database() {}

  /**
   * Raised when the database cannot be used: no server answers, it refuses our role or password, the
   * database is missing and may not be created, the embedded one cannot start. Its message is one
   * line that names what is wrong and what to do, for the person at the console.
   */
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

  /**
   * Connects to the database itself first: a role that may use an existing database needs no right
   * to list or create databases. Only when the server says it does not exist is it created, from a
   * maintenance database.
   */
  static void createIfMissing(DatabaseUrl url) {
    try {
      connect(url).close();
      return;
    } catch (SQLException e) {
      if (!"3D000".equals(e.getSQLState())) { // invalid_catalog_name: the database does not exist
        throw refused(url, e);
      }
    }
    SQLException last = null;
    for (String maintenance : new String[]{"postgres", "template1"}) {
      try (Connection c = connect(url.withDatabase(maintenance)); Statement s = c.createStatement()) {
        // The name was validated by Config ([A-Za-z0-9_]), so quoting it is enough.
        s.execute("CREATE DATABASE \"" + url.database() + "\"");
        return;
      } catch (SQLException e) {
        if ("42P04".equals(e.getSQLState())) {
          return; // created concurrently by another node: fine
        }
        last = e;
        if (!"3D000".equals(e.getSQLState())) {
          break; // only a missing maintenance database is worth another try
        }
      }
    }
    throw cannotCreate(url, last);
  }

  static int migrate(DatabaseUrl url) {
    Flyway flyway = flyway(url);
    try {
      return flyway.migrate().migrationsExecuted;
    } catch (FlywayException e) {
      // e.g. a role that may connect but not create tables (PostgreSQL 15+ no longer lets every role
      // create in the public schema): one line naming the database and the role
      // Flyway's message is a block of "Key : value" lines; its "Message" line holds the server's words
      String why = e.getMessage() == null ? e.getClass().getSimpleName()
          : e.getMessage().lines().map(String::trim).filter(l -> l.startsWith("Message"))
              .map(l -> l.substring(l.indexOf(':') + 1).trim())
              .findFirst().orElse(e.getMessage().lines().findFirst().orElse(""));
      throw new UnavailableException("Could not apply the migrations to " + url.display() + " as role '" + url.user()
          + "' (" + why + "). The role must own the database (ALTER DATABASE " + url.database() + " OWNER TO "
          + url.user() + ") or be allowed to create tables in it.", e);
    }
  }

  /** Whether every migration on the class path is applied (for /ready). Blocking. */
  public static boolean migrated(DatabaseUrl url) {
    return flyway(url).info().pending().length == 0;
  }

  /**
   * Flyway over the app's migrations. Its lock (two nodes starting at once migrate one after the
   * other) is a session advisory lock, not its default transactional one: that one keeps a
   * transaction open on a second connection for the whole run, and a migration that builds an index
   * CONCURRENTLY (V13) waits for every open transaction of the database, so it would wait forever.
   */
  private static Flyway flyway(DatabaseUrl url) {
    FluentConfiguration config = Flyway.configure()
        .dataSource(url.jdbcUrl(), url.user(), url.password())
        .locations("classpath:db/migration")
        .loggers("slf4j");
    config.getConfigurationExtension(PostgreSQLConfigurationExtension.class).setTransactionalLock(false);
    return config.load();
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

  /** What a failed connection means, in one line that names the role, the database and what to do. */
  static UnavailableException refused(DatabaseUrl url, SQLException e) {
    String where = url.host() + ":" + url.port();
    String why = firstLine(e);
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String message = switch (state) {
      case "28000" -> "PostgreSQL at " + where + " does not let role '" + url.user() + "' in (" + why + "). Create the "
          + "role (createuser -h " + url.host() + " -p " + url.port() + " --createdb " + url.user()
          + ") or name one that exists in DATABASE_URL.";
      case "28P01" -> "PostgreSQL at " + where + " refuses the password of role '" + url.user() + "' (" + why
          + "). Put the right one in DATABASE_URL (postgresql://" + url.user() + ":<password>@" + where + "/"
          + url.database() + ").";
      case "3D000" -> "Database '" + url.database() + "' does not exist at " + where + " (" + why + ").";
      case "08001", "08004", "08006", "08000", "" -> "PostgreSQL does not answer at " + where + " as user '"
          + url.user() + "' (" + why + "). Start it, for example:  pg_ctlcluster --skip-systemctl-redirect "
          + "$(ls /etc/postgresql) main start  or point DATABASE_URL at a server you have, "
          + "e.g. DATABASE_URL=postgresql://user@host:5432/shotstash";
      default -> "PostgreSQL at " + where + " refused role '" + url.user() + "' on database '" + url.database()
          + "' (" + why + ").";
    };
    return new UnavailableException(message, e);
  }

  /** The database is missing and this role could not create it. */
  private static UnavailableException cannotCreate(DatabaseUrl url, SQLException e) {
    if (!"42501".equals(e.getSQLState()) && !"3D000".equals(e.getSQLState())) {
      return refused(url.withDatabase("postgres"), e);
    }
    return new UnavailableException("Database '" + url.database() + "' does not exist at " + url.host() + ":"
        + url.port() + " and role '" + url.user() + "' may not create it (" + firstLine(e)
        + "). Create it (createdb -h "
        + url.host() + " -p " + url.port() + " -O " + url.user() + " " + url.database() + "), or let the role create "
        + "databases (ALTER ROLE " + url.user() + " CREATEDB), or name another database in DATABASE_URL.", e);
  }

  private static String firstLine(SQLException e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
  }

  /** The reactive pool every verticle shares on this node. */
  public static Pool pool(Vertx vertx, Config config) {
    return build(vertx, new PoolOptions().setMaxSize(config.dbPoolSize()).setShared(true).setName("shotstash"),
        connectOptions(config));
  }

  /**
   * The two pools of one job-queue instance ({@code JobQueueVerticle}, one per node by default). They are
   * not shared: Vert.x opens a pool's connection on the event loop of the caller that needed it, so
   * when only the instance on one loop uses them, every connection lives on that loop and a query
   * and its answer never change threads. {@code durable} commits as usual; {@code asyncCommits}
   * commits asynchronously ({@code synchronous_commit = off}): COMMIT returns before the WAL reaches
   * the disk, so a crash of PostgreSQL (not of the app) may forget the last few hundred milliseconds
   * of its commits, never part of one and never out of order: a later durable commit flushes them
   * too. Only for writes whose loss a crash may undo without harm: the job queue's claims, lease
   * moves and progress (docs/worker-contract.md; docs/operations.md says what a crash of PostgreSQL can undo).
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
        build(vertx, new PoolOptions().setMaxSize(size).setName("shotstash-queue"), queueOptions(config)),
        build(vertx, new PoolOptions().setMaxSize(size).setName("shotstash-queue-async-commit"),
            queueOptions(config).addProperty("synchronous_commit", "off")));
  }

  /**
   * The job queue's sessions plan each prepared statement once, for any parameters
   * ({@code plan_cache_mode = force_generic_plan}). Its statements take arrays (the batches) and a
   * LIMIT given as a parameter (the claim): PostgreSQL's default then kept planning them again at
   * every execution, which cost more than running them (about 1 ms of the claim's bind, measured with
   * log_min_duration_statement). Their generic plans use the same indexes (primary keys, the claim
   * order) whatever the batch holds.
   */
  private static PgConnectOptions queueOptions(Config config) {
    return connectOptions(config).addProperty("plan_cache_mode", "force_generic_plan");
  }

  private static PgConnectOptions connectOptions(Config config) {
    return connectOptions(config.database());
  }

  /**
   * How the app's sessions reach PostgreSQL at {@code url} (prepared statements cached); a fresh
   * copy each call, so a caller may add its own properties.
   */
  public static PgConnectOptions connectOptions(DatabaseUrl url) {
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
