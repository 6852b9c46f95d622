package io.shotstash.http.community;

import static io.shotstash.http.community.CommunityApi.data;
import static io.shotstash.http.community.CommunityApi.trailers;
import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The audit trail: after a run of writes by two members (and an administrator), every commit since
 * setup is one write with one parent, authored and committed by the acting member's pseudonym and
 * naming them in its subject and trailers, and nothing private (emails, passwords, tokens, user
 * agents) is anywhere in git: not in a message, not in an identity, not in any file of any commit.
 */
class AuditTest extends WithCommunityApp {
  private static final Pattern EMAIL = Pattern.compile("[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+");
  private static final String USER_AGENT = "AuditTest-Agent/1.0 (private-agent-marker)";

  static final Map<String, String> NAMES = Map.of("ada", "Ada Admin", "wren", "Wren Writer", "finn", "Finn Fixer");
  static final List<String> SECRETS = new ArrayList<>();
  static ObjectId afterSetup;
  static int writes;

  @BeforeAll
  static void writeTheAuditTrail() {
    afterSetup = api.head();
    String wren = create(admin, "wren", "Wren Writer", "wren.private@example.org", "wren secret password");
    String finn = create(admin, "finn", "Finn Fixer", "Finn.Private@Example.ORG", "finn secret password");
    SECRETS.addAll(List.of("ada@example.org", TestApp.ADMIN_PASSWORD, admin, wren, finn, USER_AGENT,
        "private-agent-marker"));

    // wren: a project and what a maintainer does in it
    write(api.post("/api/projects", wren, new JsonObject().put("title", "Audit Trail").put("summary", "Who did what")),
        201);
    write(api.patch("/api/projects/audit-trail", wren, new JsonObject().put("stage", "prototyping")), 200);
    write(api.post("/api/projects/audit-trail/updates", wren, new JsonObject().put("body", "first")), 201);
    String role = write(api.post("/api/projects/audit-trail/help-wanted", wren, new JsonObject().put("title", "Tester")
        .put("description", "Break things")), 201).getString("id");
    write(api.patch("/api/people/wren", wren, new JsonObject().put("bio", "I keep records.")), 200);
    // finn: joins, posts, is interested, goes away and comes back
    write(api.post("/api/projects/audit-trail/members/join", finn, null), 200);
    write(api.post("/api/projects/audit-trail/updates", finn, new JsonObject().put("body", "second")), 201);
    write(api.post("/api/projects/audit-trail/buzz", finn, new JsonObject().put("headline", "Audit News")
        .put("url", "https://news.example.org/audit")), 201);
    write(api.post("/api/help-wanted/" + role + "/interest", finn, new JsonObject().put("message", "I test")), 201);
    write(api.post("/api/people/finn/deactivate", finn, null), 200);
    write(api.post("/api/people/finn/reactivate", finn, null), 200);
    write(api.patch("/api/people/finn", finn, new JsonObject().put("fullName", "Finn Fixer").put("bio", "Tests.")),
        200);
    // the administrator promotes wren
    write(app.client().post("/api/people/wren/account-level").bearerTokenAuthentication(admin)
        .putHeader("User-Agent", USER_AGENT).sendJsonObject(new JsonObject().put("level", "editor")).await(), 200);
    // a no-op write makes no commit
    api.post("/api/projects/audit-trail/members/join", finn, null);
  }

  /** An administrator creates a member with a given name, email and password; signs them in. */
  private static String create(String admin, String slug, String fullName, String email, String password) {
    write(app.client().post("/api/people").bearerTokenAuthentication(admin).putHeader("User-Agent", USER_AGENT)
        .sendJsonObject(new JsonObject().put("slug", slug).put("fullName", fullName).put("email", email)
            .put("password", password))
        .await(), 201);
    SECRETS.add(email);
    SECRETS.add(email.toLowerCase());
    SECRETS.add(password);
    HttpResponse<Buffer> login = app.client().post("/api/auth/login").putHeader("User-Agent", USER_AGENT)
        .sendJsonObject(new JsonObject().put("login", slug).put("password", password)).await();
    return data(login, 200).getString("token");
  }

  private static JsonObject write(HttpResponse<Buffer> r, int status) {
    writes++;
    return data(r, status);
  }

  @Test
  void everyWriteIsOneCommitWithOneParent() {
    List<RevCommit> commits = api.commitsSince(afterSetup);
    assertThat(commits).hasSize(writes);
    for (RevCommit c : commits) {
      assertThat(c.getParentCount()).as(c.getShortMessage()).isEqualTo(1);
    }
  }

  @Test
  void everyCommitIsAuthoredByTheActorsPseudonym() {
    for (RevCommit c : api.commitsSince(afterSetup)) {
      Map<String, String> trailers = trailers(c);
      String actor = trailers.get("Actor-Slug");
      assertThat(actor).as(c.getFullMessage()).isIn(NAMES.keySet());
      assertThat(trailers).containsEntry("Actor-Kind", "human").containsKey("Action").containsKey("Subject-Id");
      assertThat(c.getShortMessage()).startsWith(actor + ": ");
      PersonIdent author = c.getAuthorIdent();
      assertThat(author.getName()).isEqualTo(NAMES.get(actor));
      assertThat(author.getEmailAddress()).isEqualTo(actor + CommunityApi.NOREPLY);
      assertThat(c.getCommitterIdent().getName()).isEqualTo(author.getName());
      assertThat(c.getCommitterIdent().getEmailAddress()).isEqualTo(author.getEmailAddress());
    }
    List<String> actors = api.commitsSince(afterSetup).stream().map(c -> trailers(c).get("Actor-Slug")).toList();
    assertThat(actors).contains("ada", "wren", "finn");
  }

  @Test
  void setupAndEarlierCommitsAreTheSystems() {
    List<RevCommit> all = api.commitsSince(null);
    List<RevCommit> before = all.subList(api.commitsSince(afterSetup).size(), all.size());
    assertThat(before).isNotEmpty();
    for (RevCommit c : before) {
      assertThat(c.getAuthorIdent().getName()).isEqualTo("Shotstash");
      assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("system" + CommunityApi.NOREPLY);
    }
    assertThat(trailers(before.get(0))).containsEntry("Actor-Kind", "system");
  }

  @Test
  void noPrivateValueIsAnywhereInGit() throws IOException {
    List<String> texts = new ArrayList<>();
    try (var repo = app.openRepository();
        ObjectReader reader = repo.newObjectReader();
        RevWalk walk = new RevWalk(reader)) {
      walk.markStart(walk.parseCommit(api.head()));
      Set<ObjectId> blobs = new HashSet<>();
      for (RevCommit c : walk) {
        texts.add(c.getFullMessage());
        texts.add(c.getAuthorIdent().toExternalString());
        texts.add(c.getCommitterIdent().toExternalString());
        try (TreeWalk tree = new TreeWalk(reader)) {
          tree.addTree(c.getTree());
          tree.setRecursive(true);
          while (tree.next()) {
            texts.add(tree.getPathString());
            if (blobs.add(tree.getObjectId(0).copy())) {
              texts.add(new String(reader.open(tree.getObjectId(0)).getBytes(), StandardCharsets.UTF_8));
            }
          }
        }
      }
      assertThat(blobs).isNotEmpty();
    }
    assertThat(texts).anyMatch(t -> t.contains("I keep records."));
    for (String text : texts) {
      for (String secret : SECRETS) {
        assertThat(text).as("git holds a private value").doesNotContainIgnoringCase(secret);
      }
      Matcher m = EMAIL.matcher(text);
      while (m.find()) {
        assertThat(m.group()).as("an email address in git: " + text).endsWith(CommunityApi.NOREPLY);
      }
    }
  }
}
