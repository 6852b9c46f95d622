package io.shotstash.cluster;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;

/**
 * Which node runs the git writer, as {@code /api/v1/status} shows it: one entry in a shared map
 * (cluster-wide under {@code serve --cluster}, this process's own otherwise). The writer's node
 * writes it with a time to live and refreshes it, so it disappears when that node dies and nobody
 * has taken over yet. It is information for people, never a fence: writes rely on the
 * compare-and-set of the branch.
 *
 * <p>Also keeps this node's own name in a local map, so the HTTP layer can say which node answered.
 */
public final class WriterRecord {
  static final String MAP = "shotstash.cluster";
  static final String KEY = "writer";
  private static final String LOCAL = "shotstash.node";

  private WriterRecord() {}

  /** {@code {node, id, member, epoch, since}} of the current writer, or null when none is known. */
  public static Future<JsonObject> lookup(Vertx vertx) {
    return map(vertx).compose(m -> m.get(KEY));
  }

  static Future<Void> put(Vertx vertx, JsonObject record, long ttlMillis) {
    return map(vertx).compose(m -> ttlMillis > 0 ? m.put(KEY, record, ttlMillis) : m.put(KEY, record));
  }

  /** Removes the record if it is still {@code id}'s. */
  static Future<Boolean> removeIfOwn(Vertx vertx, String id) {
    return map(vertx).compose(m -> m.get(KEY).compose(r -> r != null && id.equals(r.getString("id"))
        ? m.removeIfPresent(KEY, r) : Future.succeededFuture(false)));
  }

  /** For a single node: it runs the writer itself, for as long as it runs. */
  public static Future<Void> standalone(Vertx vertx, String nodeName, String id) {
    return put(vertx, record(nodeName, id, null, 0), 0);
  }

  /** {@code member} is the Hazelcast member id of the writer's node (null for a single node). */
  static JsonObject record(String nodeName, String id, String member, long epoch) {
    return new JsonObject().put("node", nodeName).put("id", id).put("member", member).put("epoch", epoch)
        .put("since", java.time.Instant.now().toString());
  }

  private static Future<AsyncMap<String, JsonObject>> map(Vertx vertx) {
    return vertx.sharedData().getAsyncMap(MAP);
  }

  /** Remembers this node's name (how {@code /api/v1/status} names it). */
  public static void nameThisNode(Vertx vertx, String name) {
    vertx.sharedData().<String, Object>getLocalMap(LOCAL).put("name", name);
  }

  /** This node's name, or null before the app set it. */
  public static String thisNode(Vertx vertx) {
    return vertx.sharedData().<String, Object>getLocalMap(LOCAL).get("name") instanceof String name ? name : null;
  }
}
