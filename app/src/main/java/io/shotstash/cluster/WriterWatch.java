package io.shotstash.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import io.shotstash.bus.ApiError;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's writes from waiting on a git writer that is gone. The event bus would let a
 * write sent to a dead node wait for its whole timeout (a minute; a message that cannot be
 * delivered is dropped without failing its request), so:
 * <ul>
 *   <li>when the writer's node leaves the cluster (at once after a crash, after the heartbeat
 *       timeout after a freeze), every write waiting on it ends with {@code 503 writer_lost}: it may
 *       or may not have been made (the writer may have committed it just before it died, or will
 *       when it wakes), so the caller checks before sending it again;</li>
 *   <li>until another node runs the writer, new writes are not sent at all and answer the
 *       retryable {@code 503 writer_unavailable};</li>
 *   <li>when the writer record names another node, writes still waiting on the previous one end
 *       the same way.</li>
 * </ul>
 *
 * <p>Knows the writer's node from the writer record, read twice a second; listens to Hazelcast's
 * membership (never to the cluster manager's node listener, which Vert.x uses itself).
 */
public final class WriterWatch {
  private static final Logger log = LoggerFactory.getLogger(WriterWatch.class);
  private static final long LOOKUP_MS = 500;

  /** A write on its way, and the writer (Hazelcast member) that was in charge when it left. */
  private record Pending(Promise<JsonObject> answer, String writer) {}

  private final Vertx vertx;
  private final Set<Pending> pending = ConcurrentHashMap.newKeySet();
  /** The writer's Hazelcast member, as last read from the writer record (kept when the record expires). */
  private volatile String writerMember;
  /** The writer whose node left the cluster, until the record names another. */
  private volatile String lostMember;

  private WriterWatch(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Starts watching for this node; the app hands it to the node's {@code PublicDataClient}. */
  public static WriterWatch start(Vertx vertx, HazelcastInstance hazelcast) {
    WriterWatch watch = new WriterWatch(vertx);
    vertx.setPeriodic(1, LOOKUP_MS, id -> watch.lookup());
    hazelcast.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {}

      @Override
      public void memberRemoved(MembershipEvent event) {
        watch.memberLeft(event.getMember().getUuid());
      }
    });
    return watch;
  }

  private void lookup() {
    WriterRecord.lookup(vertx).onSuccess(r -> writerIs(r == null ? null : r.getString("member")));
  }

  /**
   * Sends a write with {@code request} unless the writer is known to be gone; the same answer,
   * unless the writer's node leaves (or another node takes over) first.
   */
  public Future<JsonObject> send(Supplier<Future<JsonObject>> request) {
    String writer = writerMember;
    String lost = lostMember;
    if (lost != null && lost.equals(writer)) {
      return Future.failedFuture(new ApiError(503, "writer_unavailable",
          "No data writer is running at the moment (another node is taking over); try again shortly", null, 1)
          .toException());
    }
    Pending p = new Pending(Promise.promise(), writer);
    pending.add(p);
    request.get().onComplete(ar -> {
      pending.remove(p);
      if (ar.succeeded()) {
        p.answer().tryComplete(ar.result());
      } else {
        p.answer().tryFail(ar.cause());
      }
    });
    return p.answer().future();
  }

  /** The writer record names {@code member}; null (no record: it expired, or none yet) keeps the last one known. */
  void writerIs(String member) {
    if (member == null) {
      return;
    }
    String previous = writerMember;
    writerMember = member;
    if (!member.equals(lostMember)) {
      lostMember = null;
    }
    if (previous != null && !previous.equals(member)) {
      endWaitingOn(previous, "another node took the git writer over");
    }
  }

  void memberLeft(UUID member) {
    String left = member.toString();
    if (left.equals(writerMember)) {
      lostMember = left;
      endWaitingOn(left, "the git writer's node left the cluster");
      lookup();
    }
  }

  private void endWaitingOn(String writer, String why) {
    ApiError lost = new ApiError(503, "writer_lost", "The node running the data writer stopped; the change may or may "
        + "not have been saved, so check before trying again", null, 2);
    int ended = 0;
    for (Pending p : pending) {
      if (Objects.equals(p.writer(), writer) && pending.remove(p)) {
        p.answer().tryFail(lost.toException());
        ended++;
      }
    }
    if (ended > 0) {
      log.warn("{}; {} writes waiting on it end as writer_lost", why, ended);
    }
  }
}
