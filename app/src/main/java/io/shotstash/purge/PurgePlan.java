package io.shotstash.purge;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.ProjectUpdate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * What purging a person deletes from the public records (docs/moderation-api.md → What one purge does), worked out from
 * the state alone. Pure: the staff purge, the agent purge and the scheduled purge all use it, and
 * the agent rules read {@link #sharedProjects()} and {@link #deletedPaths()} from it.
 *
 * <p>Deleted: the person; their memberships, help-wanted interest and tag assignments; updates,
 * buzz, help-wanted roles (with the interest in them) and blog posts they authored; every project
 * they created that nobody else touched, with everything in it. Kept: person-evaluations under the
 * slug and every spam-purges record.
 */
public record PurgePlan(
    Person person,
    List<RecordChange> deletes,
    List<Project> projectsTaken,
    List<Project> sharedProjects,
    int memberships,
    int updates,
    int buzz,
    int helpWantedRoles,
    int interest,
    int tagAssignments,
    int blogPosts,
    Set<String> deletedPaths) {

  public PurgePlan {
    deletes = List.copyOf(deletes);
    projectsTaken = List.copyOf(projectsTaken);
    sharedProjects = List.copyOf(sharedProjects);
    deletedPaths = Set.copyOf(deletedPaths);
  }

  public static PurgePlan of(PublicState state, Person person) {
    return new Builder(state, person).build();
  }

  /** Whether someone other than {@code personId} touched the project (membership, update, buzz, role or interest). */
  public static boolean touchedByOthers(PublicState state, Project project, String personId) {
    String id = project.id();
    return byOthers(state, Sheet.PROJECT_MEMBERSHIPS, "projectId", id, ProjectMembership.class,
        ProjectMembership::personId, personId)
        || byOthers(state, Sheet.PROJECT_UPDATES, "projectId", id, ProjectUpdate.class, ProjectUpdate::authorId,
            personId)
        || byOthers(state, Sheet.PROJECT_BUZZ, "projectId", id, ProjectBuzz.class, ProjectBuzz::postedById, personId)
        || state.find(Sheet.HELP_WANTED_ROLES, "projectId", id, HelpWantedRole.class).stream()
            .anyMatch(r -> !personId.equals(r.postedById()) || byOthers(state, Sheet.HELP_WANTED_INTEREST, "roleId",
                r.id(), HelpWantedInterest.class, HelpWantedInterest::personId, personId));
  }

  /** Whether a record of {@code sheet} whose {@code index} is {@code value} belongs to someone other than {@code personId}. */
  private static <R> boolean byOthers(PublicState state, Sheet sheet, String index, String value, Class<R> type,
      Function<R, String> owner, String personId) {
    return state.find(sheet, index, value, type).stream().anyMatch(r -> !personId.equals(owner.apply(r)));
  }

  /** Collects deletions without duplicates, in a stable order. */
  private static final class Builder {
    private final PublicState state;
    private final Person person;
    private final LinkedHashSet<String> paths = new LinkedHashSet<>();
    private final List<RecordChange> deletes = new ArrayList<>();
    private final List<Project> taken = new ArrayList<>();
    private final List<Project> shared = new ArrayList<>();
    private int memberships;
    private int updates;
    private int buzz;
    private int roles;
    private int interest;
    private int tagAssignments;
    private int blogPosts;

    Builder(PublicState state, Person person) {
      this.state = state;
      this.person = person;
    }

    PurgePlan build() {
      String id = person.id();
      delete(Sheet.PEOPLE, person.slug());
      for (Project p : state.find(Sheet.PROJECTS, "createdById", id, Project.class)) {
        if (touchedByOthers(state, p, id)) {
          shared.add(p);
        } else {
          takeProject(p);
        }
      }
      // a maintainer of a project with other members makes the project shared for the agent rules
      for (ProjectMembership m : state.find(Sheet.PROJECT_MEMBERSHIPS, "personId", id, ProjectMembership.class)) {
        Project p = state.get(Sheet.PROJECTS, m.projectSlug(), Project.class);
        if (m.isMaintainer() && p != null && !shared.contains(p) && !taken.contains(p)
            && othersAreMembers(p, id)) {
          shared.add(p);
        }
      }
      memberships += deleteAll(Sheet.PROJECT_MEMBERSHIPS, "personId", id);
      interest += deleteAll(Sheet.HELP_WANTED_INTEREST, "personId", id);
      tagAssignments += deleteAll(Sheet.TAG_ASSIGNMENTS, "taggable", "person:" + id);
      updates += deleteAll(Sheet.PROJECT_UPDATES, "authorId", id);
      buzz += deleteAll(Sheet.PROJECT_BUZZ, "postedById", id);
      for (String roleKey : state.findKeys(Sheet.HELP_WANTED_ROLES, "postedById", id)) {
        HelpWantedRole role = state.get(Sheet.HELP_WANTED_ROLES, roleKey, HelpWantedRole.class);
        if (delete(Sheet.HELP_WANTED_ROLES, roleKey)) {
          roles++;
        }
        interest += deleteAll(Sheet.HELP_WANTED_INTEREST, "roleId", role.id());
      }
      blogPosts += deleteAll(Sheet.BLOG_POSTS, "authorId", id);
      return new PurgePlan(person, deletes, taken, shared, memberships, updates, buzz, roles, interest, tagAssignments,
          blogPosts, paths);
    }

    private boolean othersAreMembers(Project p, String id) {
      for (ProjectMembership m : state.find(Sheet.PROJECT_MEMBERSHIPS, "projectId", p.id(), ProjectMembership.class)) {
        if (!id.equals(m.personId())) {
          return true;
        }
      }
      return false;
    }

    private void takeProject(Project p) {
      taken.add(p);
      delete(Sheet.PROJECTS, p.slug());
      memberships += deleteAll(Sheet.PROJECT_MEMBERSHIPS, "projectId", p.id());
      updates += deleteAll(Sheet.PROJECT_UPDATES, "projectId", p.id());
      buzz += deleteAll(Sheet.PROJECT_BUZZ, "projectId", p.id());
      for (String roleKey : state.findKeys(Sheet.HELP_WANTED_ROLES, "projectId", p.id())) {
        HelpWantedRole role = state.get(Sheet.HELP_WANTED_ROLES, roleKey, HelpWantedRole.class);
        if (delete(Sheet.HELP_WANTED_ROLES, roleKey)) {
          roles++;
        }
        interest += deleteAll(Sheet.HELP_WANTED_INTEREST, "roleId", role.id());
      }
      tagAssignments += deleteAll(Sheet.TAG_ASSIGNMENTS, "taggable", "project:" + p.id());
    }

    private int deleteAll(Sheet sheet, String index, String value) {
      Collection<String> keys = new ArrayList<>(state.findKeys(sheet, index, value));
      int n = 0;
      for (String k : keys) {
        if (delete(sheet, k)) {
          n++;
        }
      }
      return n;
    }

    /** Adds a deletion once; false when it was already planned. */
    private boolean delete(Sheet sheet, String key) {
      if (paths.add(sheet.path(key))) {
        deletes.add(RecordChange.delete(sheet, key));
        return true;
      }
      return false;
    }
  }
}
