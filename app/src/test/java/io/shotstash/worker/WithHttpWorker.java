package io.shotstash.worker;

import io.shotstash.testing.WithSignedInApp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;

/**
 * The real app taking workers, its first administrator signed in, a folder for the videos the test
 * makes and downloads, and the reference worker ({@link WorkerLoop} over {@link HttpWorkerClient})
 * deployed beside it on the app's Vert.x, talking HTTP to whatever URL its settings name. After the
 * last test the worker goes first (a subclass that closes something the worker talks through calls
 * {@link #undeployWorker} before that), then the folder, then the app.
 */
abstract class WithHttpWorker extends WithSignedInApp {
  static Path media;
  private static String deployment;

  /** Starts the app with {@code bootstrapToken} for workers, signed in, and a new folder for the test's videos. */
  static void startWithMedia(String bootstrapToken, String mediaPrefix) throws IOException {
    startWithWorkers(bootstrapToken);
    media = Files.createTempDirectory(mediaPrefix);
  }

  /** Deploys the reference worker with these settings, registering with their bootstrap token at their URL. */
  static void deployWorker(WorkerSettings settings) {
    deployment = app.vertx().deployVerticle(new WorkerLoop(settings, new HttpWorkerClient(app.vertx(), settings.url(),
        settings.bootstrapToken(), settings.resumableOutputBytes()))).await();
  }

  static void undeployWorker() {
    if (deployment != null) {
      app.vertx().undeploy(deployment).await();
      deployment = null;
    }
  }

  @AfterAll
  static void stopWorker() throws IOException {
    undeployWorker();
    WorkerLoopTest.deleteTree(media);
  }
}
