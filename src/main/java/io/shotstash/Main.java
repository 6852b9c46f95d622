package io.shotstash;

import io.micrometer.core.instrument.MeterRegistry;
import io.shotstash.app.AppVerticle;
import io.shotstash.app.Config;
import io.shotstash.app.InstanceIdentity;
import io.shotstash.app.Metrics;
import io.shotstash.app.Startup;
import io.shotstash.cluster.ClusterNode;
import io.shotstash.db.Database;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.io.UncheckedIOException;
import org.slf4j.LoggerFactory;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The command line: {@code serve} (the default) runs the app; {@code migrate} only prepares the
 * database. Problems a person can fix (settings, no database) are printed as plain lines, never
 * as a stack trace.
 */
public final class Main {
  /** How long a stop may take before the process exits anyway (e.g. the whole cluster stopping at once). */
  private static final int SHUTDOWN_SECONDS = 30;

  private Main() {}

  public static void main(String[] args) {
    String command = args.length == 0 ? "serve" : args[0];
    List<String> rest = Arrays.asList(args).subList(Math.min(1, args.length), args.length);
    try {
      switch (command) {
        case "serve" -> serve(rest);
        case "migrate" -> migrate();
        case "worker" -> io.shotstash.worker.WorkerMain.run(rest);
        case "seed-demo" -> io.shotstash.demo.SeedDemo.run(rest);
        case "help", "--help", "-h" -> usage(0);
        default -> {
          System.err.println("Unknown command: " + command);
          usage(2);
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

  private static void usage(int status) {
    System.out.println("""
        Usage: java -jar shotstash.jar [command]
          serve [--cluster]
                    run the app (the default); --cluster joins the other nodes named by
                    SHOTSTASH_CLUSTER_MEMBERS (docs/operations.md)
          migrate   create the database if missing and apply the migrations, then exit
          worker    run the reference worker (720p proxies with ffmpeg) against SHOTSTASH_URL
          seed-demo [--members N] [--seed S]
                    fill an instance that has no members yet with demo content
        Settings come from environment variables; see docs/configuration.md.""");
    System.exit(status);
  }

  private static void migrate() {
    Config config = Config.fromEnvironment();
    int applied = Database.prepare(config.database());
    System.out.println("Database " + config.database().display() + " is up to date (" + applied + " migrations applied now).");
  }

  private static void serve(List<String> options) {
    boolean clustered = false;
    for (String option : options) {
      if (!"--cluster".equals(option)) {
        System.err.println("serve takes one option, --cluster; got " + option);
        System.exit(2);
      }
      clustered = true;
    }
    Config config = Config.fromEnvironment();
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
      start(builder.with(vertxOptions).build(), new AppVerticle(config, null, startup));
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
        .onSuccess(vertx -> start(vertx, new AppVerticle(config, cluster, startup)))
        .onFailure(err -> {
          System.err.println("Shotstash could not join the cluster: " + err.getMessage());
          err.printStackTrace(System.err);
          System.exit(1);
        });
  }

  private static void start(Vertx vertx, AppVerticle app) {
    vertx.deployVerticle(app).onFailure(err -> {
      Throwable root = err;
      while (root.getCause() != null && !(root instanceof Database.UnavailableException)) {
        root = root.getCause();
      }
      if (root instanceof Database.UnavailableException || root instanceof InstanceIdentity.Refused) {
        System.err.println(root.getMessage());
      } else {
        System.err.println("Shotstash could not start: " + err.getMessage());
        err.printStackTrace(System.err);
      }
      vertx.close().onComplete(v -> System.exit(1));
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> close(vertx), "shutdown"));
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
