package io.shotstash.moderation;

import io.shotstash.auth.Ids;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.Slugs;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Set;

/**
 * One evidence item of an agent purge (docs/moderation-api.md → the agent purge, the evidence
 * table): a record the member authored. {@link #parse} checks its shape before anything is looked
 * up (the route); {@link #problem} looks it up in the state (the writer, under its lock); {@link
 * #toRecord} is what the spam-purges record keeps. Pure.
 */
public sealed interface Evidence {

  /** The item's {@code record} value. */
  String record();

  /** The item as it travels to the writer: the keys of its row, nothing else. */
  JsonObject toJson();

  /** Why the record cannot be cited (missing, not the member's, empty), or null when it can. */
  String problem(PublicState state, Person member);

  /** The evidence as the spam-purges record keeps it, with its data-repo path. */
  SpamPurge.Evidence toRecord(Person member);

  /** A malformed item: the reason, for {@code 422 evidence_invalid} naming it. */
  final class Invalid extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Invalid(String reason) {
      super(reason, null, false, false);
    }
  }

  /** The member's bio: {@code {record: person, field: bio}}. */
  record Bio() implements Evidence {
    @Override
    public String record() {
      return "person";
    }

    @Override
    public JsonObject toJson() {
      return new JsonObject().put("record", record()).put("field", "bio");
    }

    @Override
    public String problem(PublicState state, Person member) {
      return blank(member.bio()) ? "the member's bio is empty" : null;
    }

    @Override
    public SpamPurge.Evidence toRecord(Person member) {
      return new SpamPurge.Evidence(record(), null, null, null, null, "bio", Sheet.PEOPLE.path(member.slug()));
    }
  }

  /** A project the member created; {@code field} is title, summary, overview or null (the title is checked). */
  record ProjectText(String project, String field) implements Evidence {
    @Override
    public String record() {
      return "project";
    }

    @Override
    public JsonObject toJson() {
      return new JsonObject().put("record", record()).put("project", project).put("field", field);
    }

    @Override
    public String problem(PublicState state, Person member) {
      Project p = state.get(Sheet.PROJECTS, project, Project.class);
      if (p == null) {
        return "no such project";
      }
      if (!member.id().equals(p.createdById())) {
        return "the project is not the member's";
      }
      String text = field == null ? p.title() : switch (field) {
        case "title" -> p.title();
        case "summary" -> p.summary();
        default -> p.overview();
      };
      return blank(text) ? "the cited field is empty" : null;
    }

    @Override
    public SpamPurge.Evidence toRecord(Person member) {
      return new SpamPurge.Evidence(record(), project, null, null, null, field, Sheet.PROJECTS.path(project));
    }
  }

  /** An update the member wrote, by project and number. */
  record Update(String project, int number) implements Evidence {
    @Override
    public String record() {
      return "project-update";
    }

    @Override
    public JsonObject toJson() {
      return new JsonObject().put("record", record()).put("project", project).put("number", number);
    }

    @Override
    public String problem(PublicState state, Person member) {
      ProjectUpdate u =
          state.get(Sheet.PROJECT_UPDATES, RecordKeys.projectUpdate(project, number), ProjectUpdate.class);
      if (u == null) {
        return "no such update";
      }
      if (!member.id().equals(u.authorId())) {
        return "the update is not the member's";
      }
      return blank(u.body()) ? "the update is empty" : null;
    }

    @Override
    public SpamPurge.Evidence toRecord(Person member) {
      return new SpamPurge.Evidence(record(), project, number, null, null, null,
          Sheet.PROJECT_UPDATES.path(RecordKeys.projectUpdate(project, number)));
    }
  }

  /** A buzz item the member posted, by project and buzz slug. */
  record Buzz(String project, String slug) implements Evidence {
    @Override
    public String record() {
      return "project-buzz";
    }

    @Override
    public JsonObject toJson() {
      return new JsonObject().put("record", record()).put("project", project).put("slug", slug);
    }

    @Override
    public String problem(PublicState state, Person member) {
      ProjectBuzz b = state.get(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz(project, slug), ProjectBuzz.class);
      if (b == null) {
        return "no such buzz";
      }
      if (!member.id().equals(b.postedById())) {
        return "the buzz is not the member's";
      }
      return blank(b.headline()) && blank(b.url()) ? "the buzz is empty" : null;
    }

    @Override
    public SpamPurge.Evidence toRecord(Person member) {
      return new SpamPurge.Evidence(record(), project, null, slug, null, null,
          Sheet.PROJECT_BUZZ.path(RecordKeys.projectBuzz(project, slug)));
    }
  }

  /** A help-wanted role the member posted, by project and role id. */
  record Role(String project, String roleId) implements Evidence {
    @Override
    public String record() {
      return "help-wanted-role";
    }

    @Override
    public JsonObject toJson() {
      return new JsonObject().put("record", record()).put("project", project).put("roleId", roleId);
    }

    @Override
    public String problem(PublicState state, Person member) {
      HelpWantedRole r =
          state.get(Sheet.HELP_WANTED_ROLES, RecordKeys.helpWantedRole(project, roleId), HelpWantedRole.class);
      if (r == null) {
        return "no such help-wanted role";
      }
      if (!member.id().equals(r.postedById())) {
        return "the role is not the member's";
      }
      return blank(r.description()) ? "the role is empty" : null;
    }

    @Override
    public SpamPurge.Evidence toRecord(Person member) {
      return new SpamPurge.Evidence(record(), project, null, null, roleId, null,
          Sheet.HELP_WANTED_ROLES.path(RecordKeys.helpWantedRole(project, roleId)));
    }
  }

  /**
   * An item's shape, before anything is looked up: an object with only the keys of its row, and
   * well-formed identifiers. Throws {@link Invalid} with the reason.
   */
  static Evidence parse(Object raw) {
    if (!(raw instanceof JsonObject item)) {
      throw new Invalid("must be an object");
    }
    String record = item.getValue("record") instanceof String s ? s : null;
    Set<String> keys = switch (record == null ? "" : record) {
      case "person" -> Set.of("record", "field");
      case "project" -> Set.of("record", "project", "field");
      case "project-update" -> Set.of("record", "project", "number");
      case "project-buzz" -> Set.of("record", "project", "slug");
      case "help-wanted-role" -> Set.of("record", "project", "roleId");
      default -> throw new Invalid("record must be person, project, project-update, project-buzz or help-wanted-role");
    };
    for (String k : item.fieldNames()) {
      if (!keys.contains(k)) {
        throw new Invalid(k + " does not belong to a " + record + " item");
      }
    }
    if ("person".equals(record)) {
      if (!"bio".equals(item.getValue("field"))) {
        throw new Invalid("a person item cites field bio");
      }
      return new Bio();
    }
    if (!(item.getValue("project") instanceof String project) || !Slugs.PROJECT.matcher(project).matches()) {
      throw new Invalid("project must be a project slug");
    }
    switch (record) {
      case "project" -> {
        Object field = item.getValue("field");
        if (field != null && !List.of("title", "summary", "overview").contains(field)) {
          throw new Invalid("field must be title, summary or overview");
        }
        return new ProjectText(project, (String) field);
      }
      case "project-update" -> {
        if (!(item.getValue("number") instanceof Number n) || n.doubleValue() != Math.floor(n.doubleValue())
            || n.longValue() < 1 || n.longValue() > Integer.MAX_VALUE) {
          throw new Invalid("number must be a positive whole number");
        }
        return new Update(project, n.intValue());
      }
      case "project-buzz" -> {
        if (!(item.getValue("slug") instanceof String s) || !Slugs.BUZZ.matcher(s).matches()) {
          throw new Invalid("slug must be a buzz slug");
        }
        return new Buzz(project, s);
      }
      default -> {
        if (!(item.getValue("roleId") instanceof String id) || !Ids.isUuid(id)) {
          throw new Invalid("roleId must be a UUID");
        }
        return new Role(project, id);
      }
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
