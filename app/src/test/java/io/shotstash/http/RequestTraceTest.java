package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Actor;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a request's log lines say of it: its path with the route's parameters named, and the kind of caller. */
class RequestTraceTest {

  @Test
  void theRoutesParametersAreNamedNeverGiven() {
    assertThat(RequestTrace.pattern("/api/people/nobody-here", Map.of("slug", "nobody-here")))
        .isEqualTo("/api/people/:slug");
    assertThat(RequestTrace.pattern("/api/admin/agents/bot/grants/0190", Map.of("slug", "bot", "id", "0190")))
        .isEqualTo("/api/admin/agents/:slug/grants/:id");
    assertThat(RequestTrace.pattern("/api/people", Map.of())).isEqualTo("/api/people");
    // a value that is also a fixed segment is named once, at the end where the route has it
    assertThat(RequestTrace.pattern("/api/people/people", Map.of("slug", "people"))).isEqualTo("/api/people/:slug");
  }

  @Test
  void callersAreCountedByKind() {
    assertThat(RequestTrace.callerKind(Actor.ANONYMOUS)).isEqualTo("anonymous");
  }
}
