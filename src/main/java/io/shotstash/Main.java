package io.shotstash;

import io.micrometer.core.instrument.MeterRegistry;
import io.shotstash.app.AppVerticle;
import io.shotstash.app.Config;
import io.shotstash.app.Metrics;
import io.shotstash.db.Database;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.util.Arrays;
import java.util.List;

/**
 * The command line: {@code serve} (the default) runs the app; {@code migrate} only prepares the
 * database. Problems a person can fix (settings, no database) are printed as plain lines, never
 * as a stack trace.
 */
public final class Main {
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
          serve     run the app (the default)
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
    if (!options.isEmpty()) {
      System.err.println("serve takes no options yet: " + options);
      System.exit(2);
    }
    Config config = Config.fromEnvironment();
    MeterRegistry registry = Metrics.registry();
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true)))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
    vertx.deployVerticle(new AppVerticle(config)).onFailure(err -> {
      Throwable root = err;
      while (root.getCause() != null && !(root instanceof Database.UnavailableException)) {
        root = root.getCause();
      }
      if (root instanceof Database.UnavailableException) {
        System.err.println(root.getMessage());
      } else {
        System.err.println("Shotstash could not start: " + err.getMessage());
        err.printStackTrace(System.err);
      }
      vertx.close().onComplete(v -> System.exit(1));
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> vertx.close().await(), "shutdown"));
  }
}
