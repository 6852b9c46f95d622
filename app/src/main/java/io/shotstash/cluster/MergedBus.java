package io.shotstash.cluster;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Repairs this node's view of who listens where after Hazelcast merged it back into the cluster (it
 * was cut off, or frozen long enough to be dropped). Vert.x keeps, per address, the nodes it last saw
 * registered there and refreshes that only when a registration on the address changes; a merge
 * brings the others' registrations back without such a change, so this node would go on sending
 * {@code publicdata.write} to a writer that is gone and publishing events to itself only.
 *
 * <p>Registering and removing a local consumer on an address is such a change on this node only,
 * and makes Vert.x read the address's registrations again. For the moment it exists, the
 * consumer on {@code publicdata.write} answers the retryable {@code 503 writer_unavailable}; the
 * ones on published addresses ignore what they get (the real consumers get it too).
 */
final class MergedBus {
  private static final Logger log = LoggerFactory.getLogger(MergedBus.class);

  /** Addresses whose consumers may live on other nodes (the rest are asked on this node only). */
  private static final List<String> SENT = List.of(Addresses.PUBLICDATA_WRITE, Addresses.PIPELINE_SWEEP,
      Addresses.MODERATION_PURGE_SWEEP);
  private static final List<String> PUBLISHED = List.of(Addresses.PUBLICDATA_CHANGED, Addresses.PIPELINE_JOB_UPDATED,
      Addresses.PIPELINE_WORKERS_CHANGED);

  private MergedBus() {}

  static void refresh(Vertx vertx) {
    log.warn("this node was merged back into the cluster; reading the event-bus registrations again");
    ApiError busy = ApiError.writerUnavailable(2);
    for (String address : SENT) {
      touch(vertx.eventBus().<Object>localConsumer(address, m -> m.fail(busy.status(), busy.toJson().encode())));
    }
    for (String address : PUBLISHED) {
      touch(vertx.eventBus().<Object>localConsumer(address, m -> {}));
    }
  }

  private static void touch(MessageConsumer<Object> consumer) {
    consumer.completion().onComplete(ar -> consumer.unregister());
  }
}
