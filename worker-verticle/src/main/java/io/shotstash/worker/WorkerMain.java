package io.shotstash.worker;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar shotstash.jar worker}: the reference worker on its own, over HTTP. Settings come
 * from the environment ({@link WorkerSettings#fromEnvironment}); bad ones stop it with one line each.
 * SIGTERM (the JVM's shutdown hook) undeploys the loop, which stops claiming and releases the
 * current job, then the process exits.
 */
public final class WorkerMain {
  private static final Logger log = LoggerFactory.getLogger(WorkerMain.class);
  private static final long SHUTDOWN_SECONDS = 25;

  private WorkerMain() {}

  static final String USAGE = """
      Usage: java -jar shotstash.jar worker
        Runs the reference worker (720p proxies with ffmpeg) against SHOTSTASH_URL. It takes no options:
        its settings (SHOTSTASH_URL, WORKER_BOOTSTRAP_TOKEN, ...) come from the environment; see
        docs/writing-a-worker.md.""";

  public static void run(List<String> options) {
    if (options.contains("--help") || options.contains("-h")) {
      System.out.println(USAGE);
      System.exit(0);
    }
    if (!options.isEmpty()) {
      System.err.println("worker: unknown option " + options.get(0));
      System.err.println(USAGE);
      System.exit(2);
    }
    WorkerSettings settings;
    try {
      settings = WorkerSettings.fromEnvironment(System.getenv());
    } catch (WorkerSettings.InvalidSettingsException e) {
      System.err.println("The worker settings are not valid:");
      e.problems().forEach(p -> System.err.println("  " + p));
      System.exit(2);
      return;
    }
    Vertx vertx = Vertx.vertx();
    WorkerLoop loop = new WorkerLoop(settings, new HttpWorkerClient(vertx, settings.url(), settings.bootstrapToken(),
        settings.resumableOutputBytes()));
    WorkerSettings s = settings;
    vertx.deployVerticle(loop)
        .compose(
            id -> s.healthPort() > 0 ? HealthServer.start(vertx, "0.0.0.0", s.healthPort(), loop::status).mapEmpty()
                : Future.succeededFuture())
        .onSuccess(v -> log.info("Worker {} works for {}{}", s.name(), s.url(),
            s.healthPort() > 0 ? "; health on http://0.0.0.0:" + s.healthPort() + "/healthz" : ""))
        .onFailure(err -> {
          System.err.println("The worker could not start: " + err.getMessage());
          vertx.close().onComplete(v -> System.exit(1));
        });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      try {
        vertx.close().await(SHUTDOWN_SECONDS, TimeUnit.SECONDS);
      } catch (Exception e) {
        System.err.println("The worker did not stop cleanly: " + e.getMessage());
      }
    }, "worker-shutdown"));
  }
}
