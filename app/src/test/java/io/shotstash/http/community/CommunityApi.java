package io.shotstash.http.community;

import io.shotstash.db.Database;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.RecordKeys;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.PersonEvaluation;
import io.shotstash.testing.DataApi;
import io.shotstash.testing.JsonApi;
import io.shotstash.testing.TestApp;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.revwalk.FooterLine;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * What the community route tests share: HTTP calls with a bearer token and envelope assertions
 * ({@link JsonApi}), reads of the data repository (commits, trailers, files) and a way to put records into git
 * behind the app's back, the way a hand-made push would.
 */
final class CommunityApi extends DataApi {
  CommunityApi(TestApp app) {
    super(app);
  }

  // ---- accounts ----

  /** An administrator creates a member at {@code level}; returns the member's bearer token. */
  String member(String adminToken, String slug, String level) {
    return app.createAndLogin(adminToken, slug, level, PASSWORD);
  }

  /** {@code owner} creates the project {@code title} (whose slug is {@code slug}) and {@code member} joins it. */
  void projectWithMember(String owner, String title, String slug, String member) {
    data(post("/api/projects", owner, new JsonObject().put("title", title)), 201);
    data(post("/api/projects/" + slug + "/members/join", member, null), 200);
  }

  // ---- git ----

  /**
   * Puts a spam vote on {@code slug} by {@code by} (e.g. human-stella), cast now, into git behind the
   * app's back (the moderation API is another part's), {@code nudger} telling the app; returns its path.
   */
  String spamVoteBehindTheAppsBack(String slug, String by, String reasoning, List<String> flags, String nudgerToken,
      String nudgerSlug) {
    PersonEvaluation vote =
        new PersonEvaluation(slug, by, "spam", reasoning, flags, null, Instant.now().truncatedTo(ChronoUnit.MILLIS));
    String key = RecordKeys.evaluation(vote);
    commitBehindTheAppsBack(List.of(RecordChange.put(Sheet.PERSON_EVALUATIONS, key, vote)), nudgerToken, nudgerSlug);
    return Sheet.PERSON_EVALUATIONS.path(key);
  }

  RevCommit headCommit() {
    return withRepository(repo -> {
      try (RevWalk walk = new RevWalk(repo)) {
        return walk.parseCommit(head());
      }
    });
  }

  /** The trailers of a commit, in order (a key given twice keeps its last value). */
  static Map<String, String> trailers(RevCommit c) {
    Map<String, String> out = new LinkedHashMap<>();
    for (FooterLine f : c.getFooterLines()) {
      out.put(f.getKey(), f.getValue());
    }
    return out;
  }

  boolean existsAtHead(String path) {
    return fileAtHead(path) != null;
  }

  /** Every file of a commit: path to content. */
  Map<String, String> filesAt(ObjectId commit) {
    return withRepository(repo -> {
      Map<String, String> out = new LinkedHashMap<>();
      try (ObjectReader reader = repo.newObjectReader();
          RevWalk walk = new RevWalk(reader);
          TreeWalk tree = new TreeWalk(reader)) {
        tree.addTree(walk.parseCommit(commit).getTree());
        tree.setRecursive(true);
        while (tree.next()) {
          out.put(tree.getPathString(), new String(reader.open(tree.getObjectId(0)).getBytes(),
              StandardCharsets.UTF_8));
        }
      }
      return out;
    });
  }

  /** Paths at the head under a folder. */
  List<String> pathsUnder(String folder) {
    return filesAt(head()).keySet().stream().filter(p -> p.startsWith(folder + "/")).toList();
  }

  // ---- PostgreSQL ----

  /** Rows of {@code table} whose {@code column} is the person's id. */
  long privateRows(String table, String column, String personId) {
    try (Connection c = Database.connect(app.db().url());
        PreparedStatement s = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE " + column + " = ?")) {
      s.setObject(1, UUID.fromString(personId));
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
