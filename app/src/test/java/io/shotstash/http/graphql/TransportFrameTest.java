package io.shotstash.http.graphql;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What a client's frame is, read by the graphql-transport-ws rules. */
class TransportFrameTest {

  static Stream<Arguments> frames() {
    String longId = "x".repeat(TransportFrame.MAX_ID_LENGTH + 1);
    return Stream.of(
        Arguments.of("{\"type\":\"connection_init\"}", TransportFrame.ConnectionInit.class),
        Arguments.of("{\"type\":\"connection_init\",\"payload\":{\"Authorization\":\"Bearer t\"}}",
            TransportFrame.ConnectionInit.class),
        Arguments.of("{\"type\":\"ping\"}", TransportFrame.Ping.class),
        Arguments.of("{\"type\":\"pong\",\"payload\":{}}", TransportFrame.Pong.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":\"1\",\"payload\":{\"query\":\"{ me { id } }\"}}",
            TransportFrame.Subscribe.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":\"1\",\"payload\":{\"query\":\"q\",\"operationName\":\"A\","
            + "\"variables\":{\"a\":1},\"extensions\":{}}}", TransportFrame.Subscribe.class),
        Arguments.of("{\"type\":\"complete\",\"id\":\"1\"}", TransportFrame.Complete.class),
        // invalid: not JSON, not an object, no or unknown type, missing or odd fields
        Arguments.of("not json {", TransportFrame.Invalid.class),
        Arguments.of("[1,2]", TransportFrame.Invalid.class),
        Arguments.of("\"subscribe\"", TransportFrame.Invalid.class),
        Arguments.of("", TransportFrame.Invalid.class),
        Arguments.of("{}", TransportFrame.Invalid.class),
        Arguments.of("{\"type\":3}", TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"next\",\"id\":\"1\"}", TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"subscribe\",\"payload\":{\"query\":\"q\"}}", TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":\"\",\"payload\":{\"query\":\"q\"}}",
            TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":\"" + longId + "\",\"payload\":{\"query\":\"q\"}}",
            TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":1,\"payload\":{\"query\":\"q\"}}", TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":\"1\"}", TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":\"1\",\"payload\":{}}", TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":\"1\",\"payload\":{\"query\":\"q\",\"variables\":[1]}}",
            TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"subscribe\",\"id\":\"1\",\"payload\":{\"query\":\"q\",\"operationName\":7}}",
            TransportFrame.Invalid.class),
        Arguments.of("{\"type\":\"complete\"}", TransportFrame.Invalid.class));
  }

  @ParameterizedTest
  @MethodSource("frames")
  void readsFrames(String text, Class<? extends TransportFrame> expected) {
    assertThat(TransportFrame.parse(text)).isInstanceOf(expected);
  }

  @ParameterizedTest
  @MethodSource("frames")
  void aCloseReasonFitsTheFrame(String text, Class<? extends TransportFrame> expected) {
    if (TransportFrame.parse(text) instanceof TransportFrame.Invalid invalid) {
      // a WebSocket close reason is at most 123 bytes
      assertThat(invalid.reason().getBytes(java.nio.charset.StandardCharsets.UTF_8).length).isLessThanOrEqualTo(123);
    }
  }

  @org.junit.jupiter.api.Test
  void aSubscribeKeepsItsParts() {
    TransportFrame frame = TransportFrame.parse(new JsonObject().put("type", "subscribe").put("id", "op-1")
        .put("payload", new JsonObject().put("query", "query A { me { id } }").put("operationName", "A")
            .put("variables", new JsonObject().put("x", 1)))
        .encode());
    assertThat(frame).isEqualTo(new TransportFrame.Subscribe("op-1", "query A { me { id } }", "A",
        new JsonObject().put("x", 1), null));
  }
}
