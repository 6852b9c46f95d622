package io.shotstash.pipeline;

import io.shotstash.db.Database;
import io.shotstash.config.Config;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds one PostgreSQL connection that LISTENs on {@code pipeline_queued} and feeds this node's
 * {@link QueueSignal}. While it is not listening (start, lost connection) the signal says "maybe",
 * so polls ask PostgreSQL: correctness never depends on a notice arriving.
 */
public final class QueueListenerVerticle extends VerticleBase {
  private static final Logger log = LoggerFactory.getLogger(QueueListenerVerticle.class);
  private static final long RECONNECT_MS = 2_000;

  private final Config.DatabaseUrl url;
  private final QueueSignal signal;
  private PgConnection connection;
  private boolean stopping;

  public QueueListenerVerticle(Config.DatabaseUrl url, QueueSignal signal) {
    this.url = url;
    this.signal = signal;
  }

  @Override
  public Future<?> start() {
    return listen();
  }

  private Future<Void> listen() {
    PgConnectOptions options = Database.connectOptions(url)
        .addProperty("application_name", "shotstash queue listener");
    return PgConnection.connect(vertx, options).compose(conn -> {
      connection = conn;
      conn.notificationHandler(n -> {
        if ("pipeline_queued".equals(n.getChannel())) {
          onQueued(n.getPayload());
        }
      });
      conn.closeHandler(v -> {
        signal.listening(false);
        if (!stopping) {
          log.warn("lost the pipeline_queued listener; polls ask PostgreSQL until it is back");
          vertx.setTimer(RECONNECT_MS, id -> listen().onFailure(err -> reconnectLater()));
        }
      });
      return conn.query("LISTEN pipeline_queued").execute().<Void>mapEmpty();
    }).onSuccess(v -> signal.listening(true));
  }

  private void reconnectLater() {
    if (!stopping) {
      vertx.setTimer(RECONNECT_MS, id -> listen().onFailure(err -> reconnectLater()));
    }
  }

  private void onQueued(String payload) {
    int space = payload.lastIndexOf(' ');
    if (space < 0) {
      return;
    }
    try {
      signal.queued(payload.substring(0, space), Long.parseLong(payload.substring(space + 1)));
    } catch (NumberFormatException e) {
      log.warn("ignored a malformed pipeline_queued notice");
    }
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    signal.listening(false);
    return connection == null ? Future.succeededFuture() : connection.close();
  }
}
