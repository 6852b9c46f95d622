package io.shotstash.worker;

import io.vertx.core.json.JsonObject;

/**
 * A snapshot of a worker loop for {@code GET /healthz}: its phase, whether it holds a registration,
 * the job it works on, the jobs it finished.
 */
public record WorkerStatus(String phase, boolean registered, String currentJob, long jobsDone) {
  public JsonObject toJson() {
    return new JsonObject().put("phase", phase).put("registered", registered).put("currentJob", currentJob)
        .put("jobsDone", jobsDone);
  }
}
