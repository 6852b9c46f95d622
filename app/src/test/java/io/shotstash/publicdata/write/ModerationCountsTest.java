package io.shotstash.publicdata.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Actor;
import io.shotstash.moderation.ModerationWrites;
import io.shotstash.purge.PurgeWrite;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The writer counts moderation by the handlers' own action names, and actors only by kind. */
class ModerationCountsTest {

  @Test
  void theActionsAreTheHandlers() {
    assertThat(ModerationCounts.VOTE).isEqualTo(ModerationWrites.VOTE);
    assertThat(ModerationCounts.AGENT_PURGE).isEqualTo(ModerationWrites.AGENT_PURGE);
    assertThat(ModerationCounts.SCHEDULED_PURGE).isEqualTo(ModerationWrites.SCHEDULED_PURGE);
    assertThat(ModerationCounts.PURGE).isEqualTo(PurgeWrite.ACTION);
  }

  @Test
  void actorsByKind() {
    assertThat(ModerationCounts.actorKind(new Actor.Member("id", "ada", "Ada", null, "s"))).isEqualTo("human");
    assertThat(ModerationCounts.actorKind(new Actor.Agent("id", "bot", "Bot", "g", Set.of()))).isEqualTo("agent");
    assertThat(ModerationCounts.actorKind(Actor.SYSTEM)).isEqualTo("system");
  }
}
