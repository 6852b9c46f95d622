package io.shotstash.moderation;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.community.PeopleWrites;
import io.shotstash.community.PurgePlan;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.publicdata.write.WriteContext;
import io.shotstash.publicdata.write.WritePlan;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * POST /api/admin/members/:slug/purge by an agent: the evidence is resolved, then rules 1-8 are
 * checked in the seed's order, all inside the write mutex, so concurrent purges never pass the
 * daily allowance or purge one member twice. A dry run runs every check and writes nothing.
 */
final class AgentPurge {
  private AgentPurge() {}

  static Future<WritePlan> plan(WriteContext ctx, WriteCommand cmd) {
    PublicState state = ctx.state();
    Actor.Agent agent = (Actor.Agent) cmd.actor();
    JsonObject p = cmd.params();
    Person target = state.personBySlug(p.getString("slug")).orElse(null);
    if (target == null) {
      return ModerationWrites.refuse(ApiError.notFound());
    }
    if (ModerationWrites.selfOrAgent(agent, target).isPresent()) {
      return ModerationWrites.refuse(ApiError.validation("slug", ModerationWrites.selfOrAgent(agent, target).get()));
    }
    List<SpamPurge.Evidence> evidence = new ArrayList<>();
    JsonArray items = p.getJsonArray("evidence", new JsonArray());
    for (int i = 0; i < items.size(); i++) {
      String problem = resolve(state, target, items.getJsonObject(i), evidence);
      if (problem != null) {
        return ModerationWrites.refuse(new ApiError(422, "evidence_invalid", "evidence[" + i + "]: " + problem,
            new JsonObject().put("evidence[" + i + "]", problem), null));
      }
    }
    // 1. only ordinary, signed-up members
    if (target.level() != AccountLevel.USER || target.legacyId() != null) {
      return ModerationWrites.refuse(ApiError.conflict("protected_account", "Agents purge only ordinary, signed-up members"));
    }
    // 2. only brand-new members
    if (target.createdAt() == null || target.createdAt().isBefore(ctx.now().minus(ModerationWrites.PURGE_MAX_AGE))) {
      return ModerationWrites.refuse(ApiError.conflict("member_too_old", "An agent purges only members who joined in the last 7 days"));
    }
    AccountVotes votes = AccountVotes.of(state, target);
    // 3. humans are final
    if (votes.humanHasVoted()) {
      return ModerationWrites.refuse(ApiError.conflict("human_verdict_exists", "A person has voted on this member"));
    }
    // 4. no legit vote standing
    if (votes.agentVotes().stream().anyMatch(e -> "legit".equals(e.verdict()))) {
      return ModerationWrites.refuse(ApiError.conflict("legit_vote_exists", "An agent's legit vote stands on this member"));
    }
    return ctx.tx().preparedQuery("SELECT last_slack_sso_at FROM private_profiles WHERE person_id = $1")
        .execute(Tuple.of(UUID.fromString(target.id()))).compose(rows -> {
          // 5. not established
          if (rows.size() > 0 && rows.iterator().next().getValue(0) != null) {
            return ModerationWrites.refuse(ApiError.conflict("established_member",
                "The member has signed into Slack through the site; a person decides"));
          }
          PurgePlan plan = PurgePlan.of(state, target);
          // 6. nothing shared
          if (!plan.sharedProjects().isEmpty()) {
            return ModerationWrites.refuse(ApiError.conflict("shared_project",
                "The member created or maintains a project others have touched"));
          }
          // 7. the evidence goes with the purge
          for (SpamPurge.Evidence e : evidence) {
            if (!plan.deletedPaths().contains(e.path())) {
              return ModerationWrites.refuse(ApiError.conflict("evidence_survives",
                  "Every evidence record must be one the purge deletes: " + e.path()));
            }
          }
          // 8. volume: this agent account's purges (not an earlier account's under its slug)
          Person self = state.personById(agent.personId()).orElse(null);
          if (self == null) {
            return ModerationWrites.refuse(ApiError.notFound()); // the agent account went while the purge was queued
          }
          Integer wait = Allowance.retryAfter(AgentActivity.of(state, self).purgeTimes(),
              ModerationWrites.PURGES_PER_DAY, ModerationWrites.DAY, ctx.now());
          if (wait != null) {
            return ModerationWrites.refuse(new ApiError(429, "rate_limited", "At most 5 purges a day", null, wait));
          }
          return Future.succeededFuture(purge(ctx, cmd, agent, target, evidence));
        });
  }

  private static WritePlan purge(WriteContext ctx, WriteCommand cmd, Actor.Agent agent, Person target,
      List<SpamPurge.Evidence> evidence) {
    JsonObject p = cmd.params();
    List<String> flags = p.getJsonArray("flags", new JsonArray()).stream().map(Object::toString).toList();
    String reason = p.getString("reason");
    List<String> voteFlags = new ArrayList<>(List.of("agent", "purged"));
    voteFlags.addAll(flags);
    PersonEvaluation vote = new PersonEvaluation(target.slug(), "agent-" + agent.slug(), "spam", reason, voteFlags, null,
        ctx.now());
    WritePlan full = PeopleWrites.purgePlan(ctx, cmd, target, "agent-" + agent.slug(), agent.grantId(), reason, flags,
        evidence, List.of(RecordChange.put(Sheet.PERSON_EVALUATIONS, RecordKeys.evaluation(vote), vote)));
    if (p.getBoolean("dryRun", false)) {
      return new WritePlan(List.of(), null, null, s -> full.reply().apply(s).put("dryRun", true));
    }
    return new WritePlan(full.changes(), full.privateWork(), full.message(), s -> full.reply().apply(s).put("dryRun", false),
        full.orphanedBlobs());
  }

  /** Resolves one evidence item to its record and path; returns why it is not valid, or null. */
  static String resolve(PublicState state, Person member, JsonObject item, List<SpamPurge.Evidence> out) {
    String record = item.getString("record");
    String field = item.getString("field");
    String projectSlug = item.getString("project");
    switch (record) {
      case "person" -> {
        if (member.bio() == null || member.bio().isBlank()) {
          return "the member's bio is empty";
        }
        out.add(new SpamPurge.Evidence("person", null, null, null, null, "bio", Sheet.PEOPLE.path(member.slug())));
        return null;
      }
      case "project" -> {
        Project project = state.get(Sheet.PROJECTS, projectSlug, Project.class);
        if (project == null) {
          return "no such project";
        }
        if (!member.id().equals(project.createdById())) {
          return "the project is not the member's";
        }
        String text = field == null ? project.title() : switch (field) {
          case "title" -> project.title();
          case "summary" -> project.summary();
          default -> project.overview();
        };
        if (text == null || text.isBlank()) {
          return "the cited field is empty";
        }
        out.add(new SpamPurge.Evidence("project", projectSlug, null, null, null, field, Sheet.PROJECTS.path(projectSlug)));
        return null;
      }
      case "project-update" -> {
        Integer number = item.getInteger("number");
        String key = RecordKeys.projectUpdate(projectSlug, number);
        ProjectUpdate u = state.get(Sheet.PROJECT_UPDATES, key, ProjectUpdate.class);
        if (u == null) {
          return "no such update";
        }
        if (!member.id().equals(u.authorId())) {
          return "the update is not the member's";
        }
        if (u.body() == null || u.body().isBlank()) {
          return "the update is empty";
        }
        out.add(new SpamPurge.Evidence("project-update", projectSlug, number, null, null, null,
            Sheet.PROJECT_UPDATES.path(key)));
        return null;
      }
      case "project-buzz" -> {
        String slug = item.getString("slug");
        String key = RecordKeys.projectBuzz(projectSlug, slug);
        ProjectBuzz b = state.get(Sheet.PROJECT_BUZZ, key, ProjectBuzz.class);
        if (b == null) {
          return "no such buzz";
        }
        if (!member.id().equals(b.postedById())) {
          return "the buzz is not the member's";
        }
        if ((b.headline() == null || b.headline().isBlank()) && (b.url() == null || b.url().isBlank())) {
          return "the buzz is empty";
        }
        out.add(new SpamPurge.Evidence("project-buzz", projectSlug, null, slug, null, null, Sheet.PROJECT_BUZZ.path(key)));
        return null;
      }
      case "help-wanted-role" -> {
        String roleId = item.getString("roleId");
        String key = RecordKeys.helpWantedRole(projectSlug, roleId);
        HelpWantedRole r = state.get(Sheet.HELP_WANTED_ROLES, key, HelpWantedRole.class);
        if (r == null) {
          return "no such help-wanted role";
        }
        if (!member.id().equals(r.postedById())) {
          return "the role is not the member's";
        }
        if (r.description() == null || r.description().isBlank()) {
          return "the role is empty";
        }
        out.add(new SpamPurge.Evidence("help-wanted-role", projectSlug, null, null, roleId, null,
            Sheet.HELP_WANTED_ROLES.path(key)));
        return null;
      }
      default -> {
        return "unknown record type";
      }
    }
  }
}
