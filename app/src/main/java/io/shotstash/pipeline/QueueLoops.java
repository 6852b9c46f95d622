package io.shotstash.pipeline;

import io.shotstash.bus.Addresses;
import io.vertx.core.Context;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which job-queue instance a caller on this node asks. The node deploys
 * {@code SHOTSTASH_PIPELINE_QUEUE_INSTANCES} {@link JobQueueVerticle}s (one by default), each on an
 * event loop of its own with its own PostgreSQL connections, and each batching the calls it gets
 * ({@link Batcher}): the fewer instances, the larger the batches. A caller on the event loop of an
 * instance asks that one (no thread crossed); a caller on another event loop always asks the same
 * instance (by its thread), so the calls of one connection keep their order; a caller on any other
 * thread (a worker-pool thread, a test) gets the shared address {@link Addresses#PIPELINE_QUEUE},
 * which every instance also serves.
 */
public final class QueueLoops {
  private final Map<Thread, String> addresses = new ConcurrentHashMap<>();
  /** The instances' addresses, sorted: the same choice for a thread while they stay. */
  private volatile List<String> instances = List.of();

  /** The node-local address of the queue instance on this event-loop thread. */
  static String localAddress(Thread loop) {
    return Addresses.PIPELINE_QUEUE + ".loop." + loop.getId();
  }

  void register(Thread loop, String address) {
    addresses.put(loop, address);
    instances = addresses.values().stream().sorted().toList();
  }

  void unregister(Thread loop, String address) {
    addresses.remove(loop, address);
    instances = addresses.values().stream().sorted().toList();
  }

  /** The address to ask from the calling thread. */
  public String address() {
    Thread caller = Thread.currentThread();
    String own = addresses.get(caller);
    if (own != null) {
      return own;
    }
    List<String> all = instances;
    if (all.isEmpty() || !Context.isOnEventLoopThread()) {
      return Addresses.PIPELINE_QUEUE;
    }
    return all.get((int) Math.floorMod(caller.getId(), (long) all.size()));
  }
}
