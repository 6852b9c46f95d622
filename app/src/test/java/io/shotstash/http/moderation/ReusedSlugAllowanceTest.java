package io.shotstash.http.moderation;

import static io.shotstash.http.moderation.ModerationHarness.data;
import static io.shotstash.http.moderation.ModerationHarness.list;
import static io.shotstash.http.moderation.ModerationHarness.newMember;
import static io.shotstash.http.moderation.ModerationHarness.now;
import static io.shotstash.http.moderation.ModerationHarness.numberedMembers;
import static io.shotstash.http.moderation.ModerationHarness.rateLimited;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.auth.Ids;
import io.shotstash.http.moderation.ModerationHarness.Agent;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The daily allowances (20 spam votes, 5 purges) count only what this account did, on the
 * account it was done to (moderation-api.md → Votes belong to one account): an earlier agent
 * account under a reused slug leaves no votes or purges to the new one, and an agent's vote on an
 * earlier member account under a reused member slug is ignored like every rule ignores it.
 */
class ReusedSlugAllowanceTest extends WithModerationApp {
  @BeforeAll
  static void members() {
    String user = h.member(admin, "usr", "user");
    h.nudger(user, "usr");
  }

  private static PersonEvaluation spamVote(String slug, String agentSlug, Instant at) {
    return new PersonEvaluation(slug, "agent-" + agentSlug, "spam", "Shop name; throwaway account.", List.of("agent"),
        null, at);
  }

  private static SpamPurge purgeRecord(String slug, String by, Instant at) {
    return new SpamPurge(UUID.randomUUID().toString(), UUID.randomUUID().toString(), slug, "Gone " + slug, null, null,
        by,
        null, "Spam", List.of(), List.of(), "0".repeat(40), at, true, null, null);
  }

  /** An agent account made three hours before {@code now}. */
  private static Person agentAccount(String slug, String fullName, Instant now) {
    return new Person(Ids.uuid7(), null, slug, fullName, null, null, "user", true, null, null, null, null,
        now.minus(Duration.ofHours(3)), now.minus(Duration.ofHours(3)));
  }

  /**
   * The agent's record, {@code count} members {@code <prefix>-NN} who joined two hours before
   * {@code now}, and the agent's spam vote on each an hour before {@code now}.
   */
  private static List<RecordChange> withSpamVotes(Person agent, String prefix, int count, Instant now) {
    List<RecordChange> changes = new ArrayList<>(List.of(ModerationHarness.put(agent)));
    for (Person m : numberedMembers(prefix, count, "bio", now.minus(Duration.ofHours(2)))) {
      changes.add(ModerationHarness.put(m));
      changes.add(ModerationHarness.put(spamVote(m.slug(), agent.slug(), now.minus(Duration.ofHours(1)))));
    }
    return changes;
  }

  @Test
  void aNewAgentUnderAReusedSlugStartsWithItsOwnAllowancesAndTrackRecord() {
    // an earlier agent account under the slug used up both daily allowances an hour ago
    Instant now = now();
    Person earlier = agentAccount("reborn-bot", "Old Bot", now);
    List<RecordChange> changes = withSpamVotes(earlier, "old-target", 20, now);
    for (int i = 1; i <= 5; i++) {
      SpamPurge p = purgeRecord("old-purged-" + i, "agent-reborn-bot", now.minus(Duration.ofHours(1)));
      changes.add(RecordChange.put(Sheet.SPAM_PURGES, p.id(), p));
    }
    h.commitBehindTheAppsBack(changes);

    // the administrator removes that account, and makes a new agent under the freed slug
    data(h.post("/api/people/reborn-bot/purge", admin,
        new JsonObject().put("reason", "Retired agent").put("spam", false)));
    assertThat(h.person("reborn-bot")).isNull();
    Agent reborn = h.agent(admin, "reborn-bot", "moderation:read", "moderation:vote", "moderation:purge");
    assertThat(reborn.id()).isNotEqualTo(earlier.id());
    h.seed(newMember("new-target", "bio", now), newMember("new-spammer", "Cheap pills, fast delivery.", now));

    data(h.agentVote(reborn, "new-target", "spam"));
    data(h.purgeBio(reborn, "new-spammer"));

    JsonObject track = agentEntry("reborn-bot");
    assertThat(track.getInteger("votesCast")).as("its vote and the vote its purge wrote").isEqualTo(2);
    assertThat(track.getLong("purges")).isEqualTo(1);
  }

  @Test
  void anAgentsVoteOnAnEarlierAccountUnderAReusedMemberSlugDoesNotUseTheAllowance() {
    Instant now = now();
    Person agent = agentAccount("twice-bot", "Twice Bot", now);
    List<RecordChange> changes = withSpamVotes(agent, "tw-target", 19, now);
    // its 20th vote was on an earlier account under "swapped": that account was purged as spam, and a
    // new member signed up under the slug since
    changes.add(ModerationHarness.put(spamVote("swapped", "twice-bot", now.minus(Duration.ofHours(1)))));
    SpamPurge purged = purgeRecord("swapped", "human-ada", now.minus(Duration.ofMinutes(50)));
    changes.add(RecordChange.put(Sheet.SPAM_PURGES, purged.id(), purged));
    changes.add(ModerationHarness.put(newMember("swapped", "bio", now.minus(Duration.ofMinutes(40)))));
    changes.add(ModerationHarness.put(newMember("tw-fresh-1", "bio", now)));
    changes.add(ModerationHarness.put(newMember("tw-fresh-2", "bio", now)));
    h.commitBehindTheAppsBack(changes);
    Agent bot = h.grantTo(admin, "twice-bot", "moderation:vote");
    assertThat(h.detail(admin, "swapped").getJsonArray("earlierVotes")).hasSize(1);

    data(h.agentVote(bot, "tw-fresh-1", "spam"));
    // twenty votes on accounts that stand now: the allowance is used up
    rateLimited(h.agentVote(bot, "tw-fresh-2", "spam"));
  }

  private static JsonObject agentEntry(String slug) {
    JsonArray agents = list(h.get("/api/admin/agents", admin));
    for (int i = 0; i < agents.size(); i++) {
      if (slug.equals(agents.getJsonObject(i).getJsonObject("person").getString("slug"))) {
        return agents.getJsonObject(i);
      }
    }
    throw new AssertionError("no agent " + slug + " in " + agents.encodePrettily());
  }
}
