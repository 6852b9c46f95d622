package io.shotstash.publicdata;

import io.shotstash.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's {@link PublicStateHolder} in step with the git writer. Each
 * {@code publicdata.changed} event names its parent: when the replica is at that parent it applies
 * the event's changes; when it is not (it missed an event, or just joined) it catches up from the
 * repository, reading only the paths that changed. The writer's own node is updated by the writer
 * itself, so events from this node are skipped.
 */
public final class ReplicaVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(ReplicaVerticle.class);

  private final PublicStateHolder holder;
  private final PublicStateLoader loader;
  private final TomlCodec codec;
  private final String nodeId;

  public ReplicaVerticle(PublicStateHolder holder, PublicStateLoader loader, TomlCodec codec, String nodeId) {
    this.holder = holder;
    this.loader = loader;
    this.codec = codec;
    this.nodeId = nodeId;
  }

  @Override
  public Future<?> start() {
    return vertx.eventBus().<JsonObject>consumer(Addresses.PUBLICDATA_CHANGED, this::onChanged).completion();
  }

  private void onChanged(Message<JsonObject> message) {
    JsonObject event = message.body();
    if (nodeId.equals(event.getString("node"))) {
      return;
    }
    PublicState state = holder.current();
    String commit = event.getString("commit");
    if (commit.equals(state.commit())) {
      return;
    }
    if (Objects.equals(event.getString("parent"), state.commit())) {
      holder.set(state.apply(commit, decode(event.getJsonArray("changes"))));
      return;
    }
    catchUp();
  }

  /** Reads what this replica missed from the repository (blocking, off the event loop, in order). */
  public Future<PublicState> catchUp() {
    return vertx.executeBlocking(() -> {
      PublicState next = loader.catchUp(holder.current());
      holder.set(next);
      return next;
    }).onFailure(err -> log.error("the public state replica could not catch up", err));
  }

  private List<RecordChange> decode(JsonArray changes) {
    List<RecordChange> out = new ArrayList<>(changes.size());
    for (int i = 0; i < changes.size(); i++) {
      JsonObject c = changes.getJsonObject(i);
      Sheet sheet = Sheet.byName(c.getString("sheet"));
      String content = c.getString("content");
      out.add(content == null ? RecordChange.delete(sheet, c.getString("key"))
          : RecordChange.put(sheet, c.getString("key"), codec.decode(sheet, content.getBytes(StandardCharsets.UTF_8))));
    }
    return out;
  }
}
