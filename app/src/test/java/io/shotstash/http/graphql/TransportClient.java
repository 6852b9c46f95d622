package io.shotstash.http.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A graphql-transport-ws client over a real WebSocket: every message it receives in order, and the
 * close frame the server sent.
 */
final class TransportClient implements AutoCloseable {
  /** The server's close frame: its status code and reason. */
  record Closed(int code, String reason) {}

  private final WebSocketClient client;
  private final WebSocket ws;
  private final BlockingQueue<JsonObject> received = new LinkedBlockingQueue<>();
  private final CompletableFuture<Closed> closed = new CompletableFuture<>();

  TransportClient(Vertx vertx, int port, Map<String, String> headers) {
    client = vertx.createWebSocketClient();
    WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
        .setURI("/graphql").addSubProtocol("graphql-transport-ws");
    headers.forEach(options::addHeader);
    ws = client.connect(options).await();
    ws.textMessageHandler(text -> received.add(new JsonObject(text)));
    ws.closeHandler(v -> closed.complete(new Closed(ws.closeStatusCode() == null ? -1 : ws.closeStatusCode(),
        ws.closeReason())));
  }

  void sendText(String text) {
    ws.writeTextMessage(text).await();
  }

  void send(JsonObject message) {
    sendText(message.encode());
  }

  /** The next message, within 10 s. */
  JsonObject next() throws InterruptedException {
    JsonObject m = received.poll(10, TimeUnit.SECONDS);
    assertThat(m).as("a message within 10 s").isNotNull();
    return m;
  }

  void init(JsonObject payload) throws InterruptedException {
    send(new JsonObject().put("type", "connection_init").put("payload", payload));
    assertThat(next().getString("type")).isEqualTo("connection_ack");
  }

  void subscribe(String id, String query, JsonObject variables) {
    send(new JsonObject().put("id", id).put("type", "subscribe")
        .put("payload", new JsonObject().put("query", query).put("variables", variables)));
  }

  /** Sends a subscribe unless the server has closed the socket already. */
  void trySubscribe(String id, String query) {
    if (!closed.isDone()) {
      ws.writeTextMessage(new JsonObject().put("id", id).put("type", "subscribe")
          .put("payload", new JsonObject().put("query", query)).encode()); // may fail: the server closed meanwhile
    }
  }

  /** Runs a query or mutation and answers its one result ({@code next}, then {@code complete}). */
  JsonObject run(String id, String query) throws InterruptedException {
    subscribe(id, query, new JsonObject());
    JsonObject next = next();
    assertThat(next.getString("id")).isEqualTo(id);
    assertThat(next.getString("type")).as(next.encode()).isEqualTo("next");
    JsonObject complete = next();
    assertThat(complete.getString("type")).as(complete.encode()).isEqualTo("complete");
    return next.getJsonObject("payload");
  }

  /** The server's close frame, within 10 s. */
  Closed awaitClose() throws Exception {
    return closed.get(10, TimeUnit.SECONDS);
  }

  /** Messages received and not yet read. */
  int pending() {
    return received.size();
  }

  @Override
  public void close() {
    if (!closed.isDone()) {
      ws.close().await();
    }
    client.close().await();
  }
}
