package io.shotstash.worker;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The contract's JSON shapes, to and from the worker's records: shared by both clients, the worker's HTTP
 * client here and the app's event-bus client ({@code EventBusWorkerClient}, in the app module), which is why
 * it is public.
 */
public final class WireFormat {
  private WireFormat() {}

  public static JsonObject manifest(WorkerManifest m) {
    return new JsonObject().put("name", m.name()).put("version", m.version()).put("kinds", new JsonArray(m.kinds()))
        .put("contract", m.contract());
  }

  public static Registration registration(JsonObject reply) {
    String workerId = reply.getString("workerId");
    if (workerId == null) {
      throw new IllegalArgumentException("the registration answer has no workerId");
    }
    return new Registration(workerId, reply.getInteger("heartbeatSeconds", 30), reply.getInteger("leaseSeconds", 90));
  }

  public static List<String> lostJobIds(JsonObject reply) {
    List<String> lost = new ArrayList<>();
    reply.getJsonArray("lostJobIds", new JsonArray()).forEach(id -> lost.add(String.valueOf(id)));
    return lost;
  }

  /** {@code {job: {...}}} → the job; null when there is none. */
  public static Job job(JsonObject reply) {
    JsonObject j = reply.getJsonObject("job");
    if (j == null) {
      return null;
    }
    JsonObject in = j.getJsonObject("input", new JsonObject());
    String id = j.getString("id");
    String claim = j.getString("claimToken");
    if (id == null || claim == null) {
      throw new IllegalArgumentException("the job has no id or claim token");
    }
    Number size = (Number) in.getValue("size", -1L);
    return new Job(id, j.getString("kind"), j.getInteger("attempt", 1), j.getInteger("maxAttempts", 3), claim,
        new Job.Input(in.getString("url", "/api/v1/pipeline/jobs/" + id + "/input"), in.getString("name"),
            in.getString("mimeType"), size.longValue()));
  }

  public static String versionId(JsonObject reply) {
    return reply.getString("versionId");
  }
}
