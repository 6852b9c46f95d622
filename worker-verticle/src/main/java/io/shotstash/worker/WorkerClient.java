package io.shotstash.worker;

import io.vertx.core.Future;
import java.nio.file.Path;
import java.util.List;

/**
 * The worker contract seen from a worker: one method per route. {@link HttpWorkerClient} speaks it over
 * HTTP (what any outside worker does); {@link EventBusWorkerClient} sends the same requests to
 * {@code pipeline.queue} inside the app. Every failure is a {@link WorkerCallException}.
 *
 * <p>The client keeps the worker token to itself: {@link #register} stores the new one (the old one
 * stops working on the app), every other call sends it.
 */
public interface WorkerClient {

  /** {@code POST workers/register} with the bootstrap token. */
  Future<Registration> register(WorkerManifest manifest);

  /** {@code POST workers/heartbeat}: answers {@code lostJobIds}. */
  Future<List<String>> heartbeat(WorkerManifest manifest, List<String> activeJobIds);

  /** {@code POST jobs/next}: the claimed job, or null when there is nothing to do (204). */
  Future<Job> next();

  /**
   * {@code GET jobs/:id/input}: the whole input in {@code target}; answers the path to read, which is
   * {@code target} (or, in-process, the stored original itself).
   */
  Future<Path> downloadInput(Job job, Path target);

  /** {@code POST jobs/:id/progress}, 0..100. */
  Future<Void> progress(Job job, int percent);

  /** {@code PUT jobs/:id/output} with Content-Type, X-Output-Ext and Content-Length; answers the version id. */
  Future<String> uploadOutput(Job job, Path file, String mimeType, String ext);

  /** {@code POST jobs/:id/complete}; answers the version id. */
  Future<String> complete(Job job);

  /** {@code POST jobs/:id/release}: gives the job back without spending an attempt. */
  Future<Void> release(Job job);

  /** {@code POST jobs/:id/fail}. */
  Future<Void> fail(Job job, String error, boolean retryable);

  /** Stops any transfer in flight for {@code job} (the job was dropped or the worker is stopping). */
  default void abortTransfers(Job job) {
    // nothing in flight by default
  }

  /** Releases what the client holds (connections). */
  default Future<Void> close() {
    return Future.succeededFuture();
  }
}
