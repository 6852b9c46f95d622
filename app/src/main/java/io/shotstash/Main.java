package io.shotstash;

import io.micrometer.core.instrument.MeterRegistry;
import io.shotstash.app.AppVerticle;
import io.shotstash.app.InstanceIdentity;
import io.shotstash.app.Startup;
import io.shotstash.cluster.ClusterNode;
import io.shotstash.config.Config;
import io.shotstash.db.Database;
import io.shotstash.db.DatabaseServer;
import io.shotstash.metrics.Metrics;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.LoggerFactory;

/**
 * The command line: {@code serve} (the default) runs the app; {@code migrate} only prepares the
 * database. Problems a person can fix (settings, no database, a port in use) are printed as plain
 * lines, never as a stack trace. {@code --help} on any command prints its usage and does nothing
 * else; an unknown command or option prints the usage and exits with status 2.
 */
public final class Main {
  /** How long a stop may take before the process exits anyway (e.g. the whole cluster stopping at once). */
  private static final int SHUTDOWN_SECONDS = 30;

  static final String USAGE = """
      Usage: java -jar shotstash.jar [command] [--help]
        serve [--cluster]
                  run the app (the default); --cluster joins the other nodes named by
                  SHOTSTASH_CLUSTER_MEMBERS (docs/operations.md)
        migrate   create the database if missing and apply the migrations, then exit
        worker    run the reference worker (720p proxies with ffmpeg) against SHOTSTASH_URL
        seed-demo [--members N] [--seed S]
                  fill an instance that has no members yet with demo content
        help      print this
      Without DATABASE_URL, the app uses PostgreSQL at 127.0.0.1:5432 if one answers there, else an
      embedded PostgreSQL in <data dir>/postgres (docs/operations.md).
      Settings come from environment variables; see docs/configuration.md.""";

  static final String SERVE_USAGE = """
      Usage: java -jar shotstash.jar serve [--cluster]
        Runs the app. --cluster joins the other nodes named by SHOTSTASH_CLUSTER_MEMBERS; a cluster
        node needs DATABASE_URL (docs/operations.md → Running a cluster).
        Settings come from environment variables; see docs/configuration.md.""";

  static final String MIGRATE_USAGE = """
      Usage: java -jar shotstash.jar migrate
        Creates the database if missing and applies the migrations, then exits. The database is
        chosen as for serve (DATABASE_URL, else 127.0.0.1:5432, else the embedded one).""";

  private Main() {}

  public static void main(String[] args) {
    String command = args.length == 0 ? "serve" : args[0];
    List<String> rest = Arrays.asList(args).subList(Math.min(1, args.length), args.length);
    try {
      switch (command) {
        case "serve" -> serve(rest);
        case "migrate" -> migrate(rest);
        case "worker" -> io.shotstash.worker.WorkerMain.run(rest);
        case "seed-demo" -> io.shotstash.demo.SeedDemo.run(rest);
        case "help", "--help", "-h" -> {
          System.out.println(USAGE);
          System.exit(0);
        }
        default -> {
          System.err.println("Unknown command: " + command);
          System.err.println(USAGE);
          System.exit(2);
        }
      }
    } catch (Config.InvalidConfigException e) {
      System.err.println("The settings are not valid:");
      e.problems().forEach(p -> System.err.println("  " + p));
      System.exit(2);
    } catch (Database.UnavailableException e) {
      System.err.println(e.getMessage());
      System.exit(1);
    }
  }

  /**
   * Reads a command's options: {@code --help} (or {@code -h}) prints {@code usage} and exits 0;
   * an option not in {@code allowed} prints a line and the usage on stderr and exits 2. Returns the
   * options given. Commands call it before anything else, so {@code --help} never does any work.
   */
  public static List<String> options(String command, List<String> given, List<String> allowed, String usage) {
    if (given.contains("--help") || given.contains("-h")) {
      System.out.println(usage);
      System.exit(0);
    }
    for (String option : given) {
      if (!allowed.contains(option)) {
        System.err.println(command + ": unknown option " + option);
        System.err.println(usage);
        System.exit(2);
      }
    }
    return given;
  }

  /**
   * The database for a command that runs and exits ({@code migrate}, {@code seed-demo}): chosen by
   * {@link DatabaseServer}; an embedded one is stopped at exit, also on Ctrl-C or SIGTERM.
   */
  public static DatabaseServer databaseFor(Config config) {
    DatabaseServer server = DatabaseServer.choose(config, false);
    if (server.embedded()) {
      Runtime.getRuntime().addShutdownHook(new Thread(server::close, "database-shutdown"));
    }
    return server;
  }

  private static void migrate(List<String> options) {
    options("migrate", options, List.of(), MIGRATE_USAGE);
    try (DatabaseServer server = databaseFor(Config.fromEnvironment())) {
      Config config = server.config();
      int applied = Database.prepare(config.database());
      System.out.println("Database " + config.database().display() + (server.embedded() ? " (embedded)" : "")
          + " is up to date (" + applied + " migrations applied now).");
    }
  }

  private static void serve(List<String> options) {
    boolean clustered = options("serve", options, List.of("--cluster"), SERVE_USAGE).contains("--cluster");
    // one rule for every command: DATABASE_URL, else the default address, else the embedded server
    // (never for a cluster node)
    DatabaseServer database = DatabaseServer.choose(Config.fromEnvironment(), clustered);
    Config config = database.config();
    // logging first, on this thread: the start-up threads log, and SLF4J would otherwise replay (and
    // say so on stderr) what they logged while it was being set up
    LoggerFactory.getILoggerFactory();
    Startup startup = Startup.begin(config); // migrations and the public state, while Vert.x starts
    MeterRegistry registry = Metrics.registry();
    // the native epoll transport where Netty ships it (Linux x86_64), NIO elsewhere
    VertxOptions vertxOptions = new VertxOptions().setPreferNativeTransport(true)
        .setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true));
    VertxBuilder builder = Vertx.builder().withMetrics(new MicrometerMetricsFactory(registry));
    if (!clustered) {
      start(builder.with(vertxOptions).build(), new AppVerticle(config, null, startup), config, database);
      return;
    }
    // ---- serve --cluster: join the others through Hazelcast (conf/cluster.xml + SHOTSTASH_CLUSTER_*)
    ClusterNode cluster;
    try {
      cluster = ClusterNode.configure(config.cluster());
    } catch (IllegalStateException | UncheckedIOException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    cluster.start(builder.with(cluster.applyTo(vertxOptions)))
        .onSuccess(vertx -> start(vertx, new AppVerticle(config, cluster, startup), config, database))
        .onFailure(err -> {
          System.err.println("Shotstash could not join the cluster: " + err.getMessage());
          err.printStackTrace(System.err);
          System.exit(1);
        });
  }

  private static void start(Vertx vertx, AppVerticle app, Config config, DatabaseServer database) {
    // one hook, so the order holds: the app closes its connections before an embedded server stops
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      close(vertx);
      database.close();
    }, "shutdown"));
    vertx.deployVerticle(app).onFailure(err -> {
      Throwable root = err;
      while (root.getCause() != null && !(root instanceof Database.UnavailableException)
          && !(root instanceof InstanceIdentity.Refused)) {
        root = root.getCause();
      }
      if (root instanceof Database.UnavailableException || root instanceof InstanceIdentity.Refused) {
        System.err.println(root.getMessage());
      } else if (portInUse(root)) {
        System.err.println("Port " + config.httpPort() + " is in use (SHOTSTASH_HTTP_PORT): another program listens on "
            + config.httpHost() + ":" + config.httpPort() + ". Stop it, or set SHOTSTASH_HTTP_PORT to a free port.");
      } else {
        System.err.println("Shotstash could not start: " + err.getMessage());
        err.printStackTrace(System.err);
      }
      vertx.close().onComplete(v -> System.exit(1));
    });
  }

  /** The bind failure of the HTTP server: Java's BindException, or Netty's native one (epoll) saying the same. */
  static boolean portInUse(Throwable error) {
    for (Throwable e = error; e != null; e = e.getCause()) {
      if (e instanceof java.net.BindException
          || e.getMessage() != null && e.getMessage().contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }

  /** Stops the node; a cluster node leaves the cluster (which frees the writer lock at once). Bounded. */
  private static void close(Vertx vertx) {
    try {
      vertx.close().await(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      System.err.println("Shotstash did not stop within " + SHUTDOWN_SECONDS + " s; exiting anyway");
    }
  }
}
