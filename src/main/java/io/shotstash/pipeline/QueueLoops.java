package io.shotstash.pipeline;

import io.shotstash.bus.Addresses;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which job-queue instance runs on which event loop of this node. The node deploys one
 * {@link JobQueueVerticle} on every event loop, each with its own PostgreSQL connections on that
 * loop; a caller on an event loop asks the instance on its own loop through that instance's
 * node-local address, so a worker call is answered on one thread from the socket to PostgreSQL and
 * back, without waking another. A caller on any other thread (a worker-pool thread, a test) gets
 * the shared address {@link Addresses#PIPELINE_QUEUE}, which every instance also serves.
 */
public final class QueueLoops {
  private final Map<Thread, String> addresses = new ConcurrentHashMap<>();

  /** The node-local address of the queue instance on this event-loop thread. */
  static String localAddress(Thread loop) {
    return Addresses.PIPELINE_QUEUE + ".loop." + loop.getId();
  }

  void register(Thread loop, String address) {
    addresses.put(loop, address);
  }

  void unregister(Thread loop, String address) {
    addresses.remove(loop, address);
  }

  /** The address to ask from the calling thread: its own loop's instance when there is one. */
  public String address() {
    return addresses.getOrDefault(Thread.currentThread(), Addresses.PIPELINE_QUEUE);
  }
}
