package io.shotstash.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Actor;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The moderation metrics name actors only by kind. */
class DomainMetricsTest {

  @Test
  void actorsByKind() {
    assertThat(DomainMetrics.actorKind(new Actor.Member("id", "ada", "Ada", null, "s"))).isEqualTo("human");
    assertThat(DomainMetrics.actorKind(new Actor.Agent("id", "bot", "Bot", "g", Set.of()))).isEqualTo("agent");
    assertThat(DomainMetrics.actorKind(Actor.SYSTEM)).isEqualTo("system");
  }
}
