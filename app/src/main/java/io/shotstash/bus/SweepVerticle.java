package io.shotstash.bus;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A verticle that runs one sweep every few seconds and one more on each request on its address,
 * answering the sweep's report. A tick that finds a sweep still going is skipped; a tick that fails
 * is logged and the next one tries again; a request that fails is answered 500 with the error's
 * message.
 */
public abstract class SweepVerticle extends VerticleBase {
  private final Logger log = LoggerFactory.getLogger(getClass());
  private final String address;
  private final int periodSeconds;
  private boolean sweeping;

  protected SweepVerticle(String address, int periodSeconds) {
    this.address = address;
    this.periodSeconds = periodSeconds;
  }

  /** One sweep; {@code options} is the request's body, empty on a tick. */
  protected abstract Future<JsonObject> sweep(JsonObject options);

  @Override
  public Future<?> start() {
    vertx.setPeriodic(periodSeconds * 1000L, id -> {
      if (!sweeping) {
        run(new JsonObject()).onFailure(err -> log.warn("sweep failed; the next one tries again", err));
      }
    });
    return vertx.eventBus().<JsonObject>consumer(address,
        m -> run(m.body() == null ? new JsonObject() : m.body())
            .onSuccess(m::reply).onFailure(err -> m.fail(500, String.valueOf(err.getMessage()))))
        .completion();
  }

  private Future<JsonObject> run(JsonObject options) {
    sweeping = true;
    return sweep(options).eventually(() -> {
      sweeping = false;
      return Future.succeededFuture();
    });
  }
}
