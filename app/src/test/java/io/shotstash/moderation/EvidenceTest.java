package io.shotstash.moderation;

import static io.shotstash.moderation.ModerationFixture.NOW;
import static io.shotstash.moderation.ModerationFixture.person;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.HelpWantedRole;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.Project;
import io.shotstash.publicdata.records.ProjectBuzz;
import io.shotstash.publicdata.records.ProjectUpdate;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Evidence items of an agent purge (docs/moderation-api.md → the agent purge, the evidence table):
 * their shape first, then the record they name, then the path the spam-purges record keeps.
 */
class EvidenceTest {
  private static final String ROLE_ID = "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
  private static final Person SPAM = person("spam", "user", null, Duration.ofHours(1), "Buy now");
  private static final Person ALICE = person("alice", "user", null, Duration.ofDays(100), null);

  private static JsonObject item(String json) {
    return new JsonObject(json);
  }

  static Stream<Arguments> wellFormed() {
    return Stream.of(
        Arguments.of("{\"record\":\"person\",\"field\":\"bio\"}", new Evidence.Bio()),
        Arguments.of("{\"record\":\"project\",\"project\":\"shop\"}", new Evidence.ProjectText("shop", null)),
        Arguments.of("{\"record\":\"project\",\"project\":\"shop\",\"field\":\"overview\"}",
            new Evidence.ProjectText("shop", "overview")),
        Arguments.of("{\"record\":\"project-update\",\"project\":\"shop\",\"number\":3}",
            new Evidence.Update("shop", 3)),
        Arguments.of("{\"record\":\"project-update\",\"project\":\"shop\",\"number\":3.0}",
            new Evidence.Update("shop", 3)),
        Arguments.of("{\"record\":\"project-buzz\",\"project\":\"shop\",\"slug\":\"cheap-pills\"}",
            new Evidence.Buzz("shop", "cheap-pills")),
        Arguments.of("{\"record\":\"help-wanted-role\",\"project\":\"shop\",\"roleId\":\"" + ROLE_ID + "\"}",
            new Evidence.Role("shop", ROLE_ID)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("wellFormed")
  void aWellFormedItemParsesAndTravelsUnchanged(String json, Evidence expected) {
    Evidence parsed = Evidence.parse(item(json));
    assertThat(parsed).isEqualTo(expected);
    assertThat(Evidence.parse(parsed.toJson())).isEqualTo(expected);
  }

  static Stream<Arguments> malformed() {
    return Stream.of(
        Arguments.of("\"bio\"", "must be an object"),
        Arguments.of("{\"record\":\"blog-post\"}",
            "record must be person, project, project-update, project-buzz or help-wanted-role"),
        Arguments.of("{\"field\":\"bio\"}",
            "record must be person, project, project-update, project-buzz or help-wanted-role"),
        Arguments.of("{\"record\":\"person\",\"field\":\"bio\",\"project\":\"shop\"}",
            "project does not belong to a person item"),
        Arguments.of("{\"record\":\"person\"}", "a person item cites field bio"),
        Arguments.of("{\"record\":\"person\",\"field\":\"fullName\"}", "a person item cites field bio"),
        Arguments.of("{\"record\":\"project\",\"project\":\"Shop\"}", "project must be a project slug"),
        Arguments.of("{\"record\":\"project\",\"project\":\"../x\"}", "project must be a project slug"),
        Arguments.of("{\"record\":\"project\",\"project\":\"shop\",\"field\":\"stage\"}",
            "field must be title, summary or overview"),
        Arguments.of("{\"record\":\"project-update\",\"project\":\"shop\",\"number\":0}",
            "number must be a positive whole number"),
        Arguments.of("{\"record\":\"project-update\",\"project\":\"shop\",\"number\":1.5}",
            "number must be a positive whole number"),
        Arguments.of("{\"record\":\"project-update\",\"project\":\"shop\",\"number\":\"1\"}",
            "number must be a positive whole number"),
        Arguments.of("{\"record\":\"project-update\",\"project\":\"shop\",\"number\":3000000000}",
            "number must be a positive whole number"),
        Arguments.of("{\"record\":\"project-buzz\",\"project\":\"shop\",\"slug\":\"a_b\"}", "slug must be a buzz slug"),
        Arguments.of("{\"record\":\"help-wanted-role\",\"project\":\"shop\",\"roleId\":\"42\"}",
            "roleId must be a UUID"));
  }

  @ParameterizedTest(name = "{0} → {1}")
  @MethodSource("malformed")
  void aMalformedItemSaysWhy(String json, String reason) {
    Object raw = json.startsWith("{") ? item(json) : json;
    assertThatThrownBy(() -> Evidence.parse(raw)).as("parse(%s)", json)
        .isInstanceOf(Evidence.Invalid.class).hasMessage(reason);
  }

  private static final Project SHOP = new Project("id-p-shop", "shop", "Cheap pills", "", null, "commenting", SPAM.id(),
      SPAM.id(), null, NOW, NOW);
  private static final Project CLUB = new Project("id-p-club", "club", "Club", null, null, "commenting", ALICE.id(),
      ALICE.id(), null, NOW, NOW);

  private static PublicState state() {
    ModerationFixture f = new ModerationFixture().person(SPAM).person(ALICE)
        .put(Sheet.PROJECTS, "shop", SHOP).put(Sheet.PROJECTS, "club", CLUB);
    f.put(Sheet.PROJECT_UPDATES, RecordKeys.projectUpdate("club", 1),
        new ProjectUpdate("u1", CLUB.id(), SPAM.id(), 1, "buy", NOW));
    f.put(Sheet.PROJECT_UPDATES, RecordKeys.projectUpdate("club", 2),
        new ProjectUpdate("u2", CLUB.id(), ALICE.id(), 2, "hi", NOW));
    f.put(Sheet.PROJECT_UPDATES, RecordKeys.projectUpdate("club", 3),
        new ProjectUpdate("u3", CLUB.id(), SPAM.id(), 3, " ", NOW));
    f.put(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz("club", "pills"),
        new ProjectBuzz("b1", CLUB.id(), SPAM.id(), "pills", null, "https://pills.example", null, NOW));
    f.put(Sheet.PROJECT_BUZZ, RecordKeys.projectBuzz("club", "blank"),
        new ProjectBuzz("b2", CLUB.id(), SPAM.id(), "blank", "", null, null, NOW));
    f.put(Sheet.HELP_WANTED_ROLES, RecordKeys.helpWantedRole("club", ROLE_ID),
        new HelpWantedRole(ROLE_ID, CLUB.id(), ALICE.id(), "Dev", "Help us", "open", NOW));
    return f.state();
  }

  static Stream<Arguments> lookedUp() {
    return Stream.of(
        Arguments.of(new Evidence.Bio(), null, "people/spam.toml"),
        Arguments.of(new Evidence.ProjectText("shop", null), null, "projects/shop.toml"),
        Arguments.of(new Evidence.ProjectText("shop", "summary"), "the cited field is empty", null),
        Arguments.of(new Evidence.ProjectText("club", null), "the project is not the member's", null),
        Arguments.of(new Evidence.ProjectText("nope", null), "no such project", null),
        Arguments.of(new Evidence.Update("club", 1), null, "project-updates/club/1.toml"),
        Arguments.of(new Evidence.Update("club", 2), "the update is not the member's", null),
        Arguments.of(new Evidence.Update("club", 3), "the update is empty", null),
        Arguments.of(new Evidence.Update("club", 9), "no such update", null),
        Arguments.of(new Evidence.Buzz("club", "pills"), null, "project-buzz/club/pills.toml"),
        Arguments.of(new Evidence.Buzz("club", "blank"), "the buzz is empty", null),
        Arguments.of(new Evidence.Buzz("club", "nope"), "no such buzz", null),
        Arguments.of(new Evidence.Role("club", ROLE_ID), "the role is not the member's", null),
        Arguments.of(new Evidence.Role("club", "0193a1b2-c3d4-7e5f-8a9b-000000000000"), "no such help-wanted role",
            null));
  }

  @ParameterizedTest(name = "{0} → {1}")
  @MethodSource("lookedUp")
  void eachItemNamesARecordOfTheMember(Evidence evidence, String problem, String path) {
    assertThat(evidence.problem(state(), SPAM)).isEqualTo(problem);
    if (path != null) {
      SpamPurge.Evidence kept = evidence.toRecord(SPAM);
      assertThat(kept.path()).isEqualTo(path);
      assertThat(kept.record()).isEqualTo(evidence.record());
    }
  }
}
