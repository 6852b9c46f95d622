package io.shotstash.http.graphql;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;

/**
 * One message of the graphql-transport-ws protocol, as a client sends it, read from a WebSocket
 * frame. Anything that is not a JSON object with a known {@code type} (and the fields that type
 * needs) is {@link Invalid}: the socket closes with 4400 and the reason, as the protocol says.
 * Server-to-client messages ({@code connection_ack}, {@code next}, {@code error}, {@code complete},
 * {@code pong}) are built by {@link #ack()} and friends.
 */
sealed interface TransportFrame {
  /** Ids longer than this are refused: an id is echoed in every message of its operation. */
  int MAX_ID_LENGTH = 128;

  /** {@code connection_init}; the payload may carry {@code Authorization: Bearer ...}. */
  record ConnectionInit(Object payload) implements TransportFrame {}

  record Ping(Object payload) implements TransportFrame {}

  record Pong() implements TransportFrame {}

  /** {@code subscribe}: start an operation (a query, mutation or subscription) under the client's id. */
  record Subscribe(String id, String query, String operationName, JsonObject variables, JsonObject extensions)
      implements
        TransportFrame {}

  /** {@code complete} from the client: stop the operation with that id. */
  record Complete(String id) implements TransportFrame {}

  /** Not a message this server takes; {@code reason} goes into the 4400 close frame. */
  record Invalid(String reason) implements TransportFrame {}

  static TransportFrame parse(String text) {
    JsonObject json;
    try {
      json = new JsonObject(text);
    } catch (DecodeException | ClassCastException e) {
      return new Invalid("Invalid message received");
    }
    Object type = json.getValue("type");
    if (!(type instanceof String t)) {
      return new Invalid("Message has no type");
    }
    return switch (t) {
      case "connection_init" -> new ConnectionInit(json.getValue("payload"));
      case "ping" -> new Ping(json.getValue("payload"));
      case "pong" -> new Pong();
      case "subscribe" -> subscribe(json);
      case "complete" -> {
        String id = id(json);
        yield id == null ? new Invalid("Complete message must have an id") : new Complete(id);
      }
      default -> new Invalid("Unexpected message type: " + (t.length() > 40 ? t.substring(0, 40) : t));
    };
  }

  private static TransportFrame subscribe(JsonObject json) {
    String id = id(json);
    if (id == null) {
      return new Invalid("Subscribe message must have an id");
    }
    if (!(json.getValue("payload") instanceof JsonObject payload)) {
      return new Invalid("Subscribe message must have a payload object");
    }
    Object query = payload.getValue("query");
    Object name = payload.getValue("operationName");
    Object variables = payload.getValue("variables");
    Object extensions = payload.getValue("extensions");
    if (!(query instanceof String q)
        || (name != null && !(name instanceof String))
        || (variables != null && !(variables instanceof JsonObject))
        || (extensions != null && !(extensions instanceof JsonObject))) {
      return new Invalid(
          "Subscribe payload must have a query string (and optional operationName, variables, extensions)");
    }
    return new Subscribe(id, q, (String) name, (JsonObject) variables, (JsonObject) extensions);
  }

  private static String id(JsonObject json) {
    return json.getValue("id") instanceof String id && !id.isEmpty() && id.length() <= MAX_ID_LENGTH ? id : null;
  }

  // ---- what the server sends ----

  static String ack() {
    return new JsonObject().put("type", "connection_ack").encode();
  }

  static String pong(Object payload) {
    JsonObject m = new JsonObject().put("type", "pong");
    if (payload != null) {
      m.put("payload", payload);
    }
    return m.encode();
  }

  static String next(String id, Map<String, Object> result) {
    return new JsonObject().put("id", id).put("type", "next").put("payload", new JsonObject(result)).encode();
  }

  static String error(String id, List<?> errors) {
    return new JsonObject().put("id", id).put("type", "error").put("payload", new JsonArray(errors))
        .encode();
  }

  static String complete(String id) {
    return new JsonObject().put("id", id).put("type", "complete").encode();
  }
}
