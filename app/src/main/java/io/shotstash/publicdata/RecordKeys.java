package io.shotstash.publicdata;

import io.shotstash.publicdata.records.HelpWantedInterest;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectMembership;
import io.shotstash.publicdata.records.SpamPurge;
import io.shotstash.publicdata.records.Tag;
import io.shotstash.publicdata.records.TagAssignment;

/**
 * Renders each sheet's path template for a record. Templates that name a field the record does not
 * carry (a project update's {@code projectSlug}) take it as an argument.
 */
public final class RecordKeys {
  private RecordKeys() {}

  public static String person(Person p) {
    return p.slug();
  }

  public static String project(Project p) {
    return p.slug();
  }

  public static String membership(ProjectMembership m) {
    return m.projectSlug() + "/" + m.personSlug();
  }

  public static String projectUpdate(String projectSlug, int number) {
    return projectSlug + "/" + number;
  }

  public static String projectBuzz(String projectSlug, String buzzSlug) {
    return projectSlug + "/" + buzzSlug;
  }

  public static String helpWantedRole(String projectSlug, String roleId) {
    return projectSlug + "/" + roleId;
  }

  public static String helpWantedInterest(HelpWantedInterest i, String personSlug) {
    return i.roleId() + "/" + personSlug;
  }

  public static String tag(Tag t) {
    return t.namespace() + "/" + t.slug();
  }

  public static String tagAssignment(TagAssignment a) {
    return a.tagId() + "/" + a.taggableType() + "/" + a.taggableId();
  }

  public static String evaluation(PersonEvaluation e) {
    return e.personSlug() + "/" + e.evaluator();
  }

  public static String spamPurge(SpamPurge p) {
    return p.id();
  }
}
