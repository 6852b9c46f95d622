package io.shotstash.moderation;

import io.shotstash.agents.Grants;
import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.metrics.DomainMetrics;
import io.shotstash.people.AccountProtection;
import io.shotstash.people.PersonView;
import io.shotstash.publicdata.CommitMessage;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.write.Attribution;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WriteHandler;
import io.shotstash.publicdata.write.WritePlan;
import io.shotstash.purge.AccountVotes;
import io.shotstash.purge.PurgeWrite;
import io.shotstash.purge.SpamPurgeView;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The moderation writes (docs/moderation-api.md), each checked inside the git writer so the
 * check, the commit and the in-memory update happen under one lock: agent accounts, votes (human
 * and agent), withdrawing a vote, the agent purge, unblocking a spam-purges record, withdrawing an
 * agent's votes, and the scheduled purge.
 */
public final class ModerationWrites {
  public static final String CREATE_AGENT = "agent.create";
  public static final String VOTE = "moderation.vote";
  public static final String UNVOTE = "moderation.unvote";
  public static final String AGENT_PURGE = "moderation.purge";
  public static final String UNBLOCK = "spam-purge.unblock";
  public static final String WITHDRAW = "agent.withdraw-votes";
  public static final String SCHEDULED_PURGE = "moderation.scheduled-purge";

  private ModerationWrites() {}

  public static List<WriteHandler> handlers() {
    return List.of(WriteHandler.of(CREATE_AGENT, ModerationWrites::createAgent),
        WriteHandler.of(VOTE, ModerationWrites::vote),
        WriteHandler.of(UNVOTE, ModerationWrites::unvote), WriteHandler.of(AGENT_PURGE, AgentPurge::plan),
        WriteHandler.of(UNBLOCK, ModerationWrites::unblock),
        WriteHandler.of(WITHDRAW, ModerationWrites::withdraw),
        WriteHandler.of(SCHEDULED_PURGE, ModerationWrites::scheduledPurge));
  }

  static <T> Future<T> refuse(ApiError e) {
    return Future.failedFuture(e.toException());
  }

  static CommitMessage.Builder message(WriteCommand cmd, String action, Person subject, String body) {
    return Attribution.message(cmd, action, "person", subject.id(), subject.slug()).body(body);
  }

  /** Slugs of agent accounts with an active grant, read inside the write's transaction. */
  static Future<Set<String>> activeAgentSlugs(WriteContext ctx) {
    return Grants.agentsWithActiveGrant(ctx.tx()).map(ids -> ids.stream()
        .map(id -> ctx.state().personById(id).map(Person::slug).orElse(null))
        .filter(s -> s != null).collect(Collectors.toSet()));
  }

  static Person withVisibility(Person p, Instant deletedAt, String deactivatedBy, Instant now) {
    return new Person(p.id(), p.legacyId(), p.slug(), p.fullName(), p.bio(), p.avatarKey(), p.accountLevel(), p.agent(),
        p.githubUserId(), p.githubLogin(), deletedAt, deactivatedBy, p.createdAt(), now);
  }

  // ---- agent accounts ----

  /** {slug, fullName}: administrators create agent accounts (level user, agent = true). */
  static Future<WritePlan> createAgent(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    if (!(cmd.actor() instanceof Actor.Member m) || state.personById(m.personId())
        .filter(p -> !p.isDeactivated() && p.level() == AccountLevel.ADMINISTRATOR).isEmpty()) {
      return refuse(ApiError.notFound());
    }
    String slug = cmd.params().getString("slug");
    if (state.personBySlug(slug).isPresent()) {
      return refuse(ApiError.validation("slug", "is taken"));
    }
    Person agent =
        new Person(Ids.uuid7(), null, slug, cmd.params().getString("fullName"), null, null, "user", true, null,
            null, null, null, ctx.now(), ctx.now());
    return Future.succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.PEOPLE, slug, agent)), null,
        Attribution.actorTrailers(message(cmd, CREATE_AGENT, agent, null), cmd.actor()).build(),
        s -> new JsonObject().put("person", PersonView.staffJson(agent, null))));
  }

  // ---- votes ----

  /**
   * {slug, verdict, reasoning?, flags?}: record the caller's verdict (one record per voter per
   * person). A spam vote hides the member; a legit vote that reverses a moderation hide shows
   * them again. People vote spam only below their own level and never on the last active
   * administrator ({@link AccountProtection}); agents are held to {@link AgentVoteRules}.
   */
  static Future<WritePlan> vote(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    Person target = state.personBySlug(cmd.params().getString("slug")).orElse(null);
    if (target == null) {
      return refuse(ApiError.notFound());
    }
    String verdict = cmd.params().getString("verdict");
    Optional<String> notAMember = ModerationTarget.problem(cmd.actor(), target);
    if (notAMember.isPresent()) {
      return refuse(ApiError.validation("slug", notAMember.get()));
    }
    if (cmd.actor() instanceof Actor.Member m) {
      // the voter's level from the live record: one demoted or hidden since the request began is no moderator
      AccountLevel level = state.personById(m.personId()).filter(p -> !p.isDeactivated()).map(Person::level)
          .orElse(AccountLevel.USER);
      if (!level.atLeast(AccountLevel.STAFF)) {
        return refuse(ApiError.notFound());
      }
      Optional<AccountProtection.Refusal> protectedAccount = AccountProtection.vote(level, verdict, target,
          state.countActive(AccountLevel.ADMINISTRATOR));
      if (protectedAccount.isPresent()) {
        return refuse(protectedAccount.get().error());
      }
    }
    if (cmd.actor() instanceof Actor.Agent agent) {
      Optional<Refusal> refused = AgentVoteRules.check(state, agent, target, verdict, ctx.now());
      if (refused.isPresent()) {
        return refuse(refused.get().error());
      }
    }
    return Future.succeededFuture(votePlan(ctx, cmd, target, AccountVotes.of(state, target), verdict));
  }

  static String evaluator(Actor actor) {
    if (actor instanceof Actor.Agent a) {
      return "agent-" + a.slug();
    }
    return "human-" + ((Actor.Member) actor).slug();
  }

  static PersonEvaluation evaluation(Actor actor, Person target, String verdict, String reasoning, List<String> flags,
      Instant now) {
    if (actor instanceof Actor.Agent) {
      List<String> all = new ArrayList<>(List.of("agent"));
      all.addAll(flags);
      return new PersonEvaluation(target.slug(), evaluator(actor), verdict, reasoning, all, null, now);
    }
    return new PersonEvaluation(target.slug(), evaluator(actor), verdict, reasoning, List.of("manual-override"), 1.0,
        now);
  }

  private static WritePlan votePlan(WriteContext ctx, WriteCommand cmd, Person target, AccountVotes before,
      String verdict) {
    List<String> flags = cmd.params().getJsonArray("flags", new JsonArray()).stream().map(Object::toString).toList();
    PersonEvaluation vote =
        evaluation(cmd.actor(), target, verdict, cmd.params().getString("reasoning"), flags, ctx.now());
    List<RecordChange> changes = new ArrayList<>();
    changes.add(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(vote), vote));
    Person after = target;
    if ("spam".equals(verdict) && !target.isDeactivated()) {
      after = withVisibility(target, ctx.now(), "moderation", ctx.now());
    } else if ("legit".equals(verdict) && target.isDeactivated() && "moderation".equals(target.deactivatedBy())
        && before.latestAnyVote().map(e -> "spam".equals(e.verdict())).orElse(false)) {
      after = withVisibility(target, null, null, ctx.now()); // the reversal rule
    }
    if (after != target) {
      changes.add(RecordChange.put(Sheet.PEOPLE, target.slug(), after));
    }
    String body = verdict + (vote.reasoning() == null ? "" : ": " + vote.reasoning());
    CommitMessage msg = Attribution.actorTrailers(message(cmd, VOTE, target, body), cmd.actor()).build();
    return new WritePlan(changes, null, msg, s -> {
      Person p = s.personById(target.id()).orElseThrow();
      AccountVotes now = AccountVotes.of(s, p);
      return new JsonObject().put("person", PersonView.staffJson(p, null))
          .put("vote", ModerationViews.vote(s, vote))
          .put("latestVote", now.latestVote().map(e -> ModerationViews.latestVote(s, e)).orElse(null));
    }).whenCommitted(() -> DomainMetrics.vote(DomainMetrics.actorKind(cmd.actor()), verdict));
  }

  /** DELETE vote: an agent takes back its own vote (reversal rule); history once a human voted. */
  static Future<WritePlan> unvote(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    Person target = state.personBySlug(cmd.params().getString("slug")).orElse(null);
    Actor.Agent agent = (Actor.Agent) cmd.actor();
    if (target == null) {
      return refuse(ApiError.notFound());
    }
    AccountVotes votes = AccountVotes.of(state, target);
    Optional<PersonEvaluation> mine = votes.voteBy("agent-" + agent.slug());
    if (mine.isEmpty()) {
      return refuse(ApiError.notFound());
    }
    if (votes.humanHasVoted()) {
      return refuse(
          ApiError.conflict("human_verdict_exists", "A person has voted on this member; the agent's vote is history"));
    }
    return activeAgentSlugs(ctx).map(active -> {
      List<RecordChange> changes =
          new ArrayList<>(withdrawChanges(state, target, votes, List.of(mine.get()), ctx.now()));
      CommitMessage msg = Attribution.actorTrailers(message(cmd, UNVOTE, target, null), cmd.actor()).build();
      return new WritePlan(changes, null, msg, s -> {
        Person p = s.personById(target.id()).orElseThrow();
        AccountVotes now = AccountVotes.of(s, p);
        return new JsonObject().put("person", PersonView.staffJson(p, null)).put("stagedVote",
            now.stagedVote().map(e -> ModerationViews.stagedVote(s, e, active.contains(e.voterSlug()))).orElse(null));
      });
    });
  }

  /**
   * Removing agent votes from a member no human has voted on: the records go, and if the latest
   * vote was spam and no other agent's spam vote remains, a moderation hide is lifted.
   */
  static List<RecordChange> withdrawChanges(PublicState state, Person target, AccountVotes votes,
      List<PersonEvaluation> removed, Instant now) {
    List<RecordChange> changes = new ArrayList<>();
    removed.forEach(e -> changes.add(RecordChange.delete(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(e))));
    boolean latestWasRemovedSpam = votes.latestAnyVote().filter(removed::contains).map(e -> "spam".equals(e.verdict()))
        .orElse(false);
    boolean otherAgentSpam =
        votes.agentVotes().stream().anyMatch(e -> !removed.contains(e) && "spam".equals(e.verdict()));
    if (latestWasRemovedSpam && !otherAgentSpam && target.isDeactivated()
        && "moderation".equals(target.deactivatedBy())) {
      changes.add(RecordChange.put(Sheet.PEOPLE, target.slug(), withVisibility(target, null, null, now)));
    }
    return changes;
  }

  /** {agentSlug}: staff remove every vote of an agent on members no human has voted on, in one commit. */
  static Future<WritePlan> withdraw(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    if (!(cmd.actor() instanceof Actor.Member m) || state.personById(m.personId())
        .filter(p -> !p.isDeactivated() && p.level().atLeast(AccountLevel.STAFF)).isEmpty()) {
      return refuse(ApiError.notFound());
    }
    Person agent = state.personBySlug(cmd.params().getString("agentSlug")).filter(Person::isAgentAccount).orElse(null);
    if (agent == null) {
      return refuse(ApiError.notFound());
    }
    List<RecordChange> changes = new ArrayList<>();
    int withdrawn = 0;
    for (PersonEvaluation e : state.find(Sheet.PERSON_EVALUATIONS, "evaluator", "agent-" + agent.slug(),
        PersonEvaluation.class)) {
      Person target = state.personBySlug(e.personSlug()).orElse(null);
      if (target == null) {
        continue; // a purged member's record stays as the record of why
      }
      AccountVotes votes = AccountVotes.of(state, target);
      if (votes.humanHasVoted() || !votes.counting().contains(e)) {
        continue;
      }
      changes.addAll(withdrawChanges(state, target, votes, List.of(e), ctx.now()));
      withdrawn++;
    }
    int count = withdrawn;
    if (changes.isEmpty()) {
      return Future.succeededFuture(WritePlan.noChange(s -> new JsonObject().put("withdrawn", 0)));
    }
    CommitMessage msg =
        Attribution.actorTrailers(message(cmd, WITHDRAW, agent, "withdrew " + count + " votes"), cmd.actor())
            .build();
    return Future.succeededFuture(new WritePlan(changes, null, msg, s -> new JsonObject().put("withdrawn", count)));
  }

  /** {id, reason?}: staff lift a record's sign-in block; unblocking twice is a no-op. */
  static Future<WritePlan> unblock(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    if (!(cmd.actor() instanceof Actor.Member m) || state.personById(m.personId())
        .filter(p -> !p.isDeactivated() && p.level().atLeast(AccountLevel.STAFF)).isEmpty()) {
      return refuse(ApiError.notFound());
    }
    SpamPurge record = state.get(Sheet.SPAM_PURGES, cmd.params().getString("id"), SpamPurge.class);
    if (record == null) {
      return refuse(ApiError.notFound());
    }
    if (record.unblockedAt() != null) {
      return Future.succeededFuture(WritePlan.noChange(s -> new JsonObject().put("purge", SpamPurgeView.json(record))));
    }
    SpamPurge unblocked = new SpamPurge(record.id(), record.personId(), record.slug(), record.fullName(),
        record.githubUserId(), record.githubLogin(), record.by(), record.grantId(), record.reason(), record.flags(),
        record.evidence(), record.beforeCommit(), record.purgedAt(), record.blocksSignIn(), ctx.now(), m.slug());
    CommitMessage msg =
        Attribution.actorTrailers(Attribution.message(cmd, UNBLOCK, "spam-purge", record.id(), record.slug())
            .body(cmd.params().getString("reason")), cmd.actor()).build();
    return Future
        .succeededFuture(new WritePlan(List.of(RecordChange.put(Sheet.SPAM_PURGES, record.id(), unblocked)), null,
            msg, s -> new JsonObject().put("purge", SpamPurgeView.json(unblocked))));
  }

  /** {slug}: the system purges a member whose purgeAfter has passed (by = scheduled). */
  static Future<WritePlan> scheduledPurge(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    if (!(cmd.actor() instanceof Actor.SystemActor)) {
      return refuse(ApiError.notFound());
    }
    Person target = state.personBySlug(cmd.params().getString("slug")).orElse(null);
    if (target == null) {
      return Future.succeededFuture(WritePlan.noChange(s -> new JsonObject().put("purged", false)));
    }
    return activeAgentSlugs(ctx).map(active -> {
      Instant after = AccountVotes.of(state, target).purgeAfter(active);
      if (after == null || after.isAfter(ctx.now())) {
        return WritePlan.noChange(s -> new JsonObject().put("purged", false));
      }
      WritePlan plan = PurgeWrite.plan(ctx, cmd, target, "scheduled", null,
          "Scheduled purge: every deciding vote was spam for three days", List.of(), List.of(), List.of());
      return new WritePlan(plan.changes(), plan.privateWork(), plan.message(),
          s -> plan.reply().apply(s).put("purged", true), plan.orphanedBlobs(), plan.committed());
    });
  }
}
