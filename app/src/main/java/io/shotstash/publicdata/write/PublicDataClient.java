package io.shotstash.publicdata.write;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.cluster.WriterWatch;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import java.util.function.Supplier;

/**
 * Sends write commands to the git writer, wherever in the cluster it runs. Each command carries a
 * deadline a little before this client stops waiting; the writer refuses a command past it instead
 * of committing a change whose sender has already given up (a node that froze and wakes up with
 * old commands in its queue). Failures of the bus itself become retryable refusals: no writer
 * registered (another node is taking over) is {@code 503 writer_unavailable}, no answer in time is
 * {@code 503 write_timeout}. In a cluster, a write waiting on a writer whose node leaves the cluster
 * ends at once as {@code 503 writer_lost}, and none is sent until another node runs the writer
 * ({@link WriterWatch}, given by the app when it runs clustered).
 */
public final class PublicDataClient {
  private static final long TIMEOUT_MS = 60_000;
  /** The writer gives up this long before the sender does, so a late commit cannot go unreported. */
  private static final long DEADLINE_MARGIN_MS = 5_000;
  static final String DEADLINE = "deadline";

  private final Vertx vertx;
  /** In a cluster: no waiting on a writer whose node died; null on a single node (nothing to watch). */
  private final WriterWatch watch;

  /** A client for a single node, where the writer runs in this process. */
  public PublicDataClient(Vertx vertx) {
    this(vertx, null);
  }

  /** A client that sends through {@code watch} (null: straight to the bus, as on a single node). */
  public PublicDataClient(Vertx vertx, WriterWatch watch) {
    this.vertx = vertx;
    this.watch = watch;
  }

  /** The writer's reply; a refusal fails the future with a ReplyException that ApiError reads. */
  public Future<JsonObject> write(WriteCommand command) {
    DeliveryOptions options = new DeliveryOptions().setSendTimeout(TIMEOUT_MS)
        .addHeader(Addresses.ACTION, command.action())
        .addHeader(DEADLINE, Long.toString(System.currentTimeMillis() + TIMEOUT_MS - DEADLINE_MARGIN_MS));
    Supplier<Future<JsonObject>> request = () -> vertx.eventBus()
        .<JsonObject>request(Addresses.PUBLICDATA_WRITE, command.toJson(), options).map(message -> message.body());
    return (watch == null ? request.get() : watch.send(request)).recover(PublicDataClient::translate);
  }

  private static Future<JsonObject> translate(Throwable failure) {
    if (failure instanceof ReplyException re && re.failureType() == ReplyFailure.NO_HANDLERS) {
      return Future.failedFuture(ApiError.writerUnavailable(2).toException());
    }
    if (failure instanceof ReplyException re && re.failureType() == ReplyFailure.TIMEOUT) {
      return Future.failedFuture(ApiError.of(503, "write_timeout",
          "The data writer did not answer in time; check whether the change was made before trying again")
          .toException());
    }
    return Future.failedFuture(failure);
  }

  /** The deadline a command carries (epoch milliseconds), or 0 when it has none. */
  static long deadline(MultiMap headers) {
    String value = headers.get(DEADLINE);
    try {
      return value == null ? 0 : Long.parseLong(value);
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
