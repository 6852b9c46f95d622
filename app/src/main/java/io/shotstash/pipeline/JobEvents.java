package io.shotstash.pipeline;

import io.shotstash.bus.Addresses;
import io.shotstash.media.Storage;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the job queue tells the rest of the app once a change is committed: the job's new state on
 * {@code pipeline.job.updated} (GraphQL subscriptions and pages listen), and outputs no job owns any
 * more deleted from storage (the sweeper deletes any this misses).
 */
final class JobEvents {
  private static final Logger log = LoggerFactory.getLogger(JobEvents.class);

  private final Vertx vertx;
  private final Storage storage;

  JobEvents(Vertx vertx, Storage storage) {
    this.vertx = vertx;
    this.storage = storage;
  }

  void updated(String id, Long seq, String status, Integer progress) {
    vertx.eventBus().publish(Addresses.PIPELINE_JOB_UPDATED,
        new JsonObject().put("id", id).put("seq", seq).put("status", status).put("progress", progress));
  }

  /** Something about the job changed that only its seq shows (readers fetch the job again). */
  void seqMoved(UUID id) {
    vertx.eventBus().publish(Addresses.PIPELINE_JOB_UPDATED, new JsonObject().put("id", id.toString()));
  }

  void deleteOrphan(String key) {
    if (key != null) {
      storage.delete(key).onFailure(err -> log.warn("could not delete an output no job owns; the sweeper will", err));
    }
  }

  Storage storage() {
    return storage;
  }
}
