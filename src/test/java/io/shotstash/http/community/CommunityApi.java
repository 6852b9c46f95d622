package io.shotstash.http.community;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.db.Database;
import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.shotstash.testing.JsonApi;
import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.FooterLine;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * What the community route tests share: HTTP calls with a bearer token and envelope assertions
 * ({@link JsonApi}), reads of the data repository (commits, trailers, files) and a way to put records into git
 * behind the app's back, the way a hand-made push would.
 */
final class CommunityApi extends JsonApi {
  static final String PASSWORD = "member password 123";
  static final String NOREPLY = "@users.noreply.codeforphilly.org";

  final TomlCodec codec = new TomlCodec();
  private final AtomicInteger nudges = new AtomicInteger();

  CommunityApi(TestApp app) {
    super(app);
  }

  // ---- accounts ----

  /** An administrator creates a member at {@code level}; returns the member's bearer token. */
  String member(String adminToken, String slug, String level) {
    app.createPerson(adminToken, slug, level, PASSWORD);
    return app.login(slug, PASSWORD);
  }

  String idOf(String slug) {
    return app.publicState().current().personBySlug(slug).orElseThrow().id();
  }

  // ---- git ----

  <T> T withRepository(RepositoryWork<T> work) {
    try (Repository repo = app.openRepository()) {
      return work.run(repo);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  interface RepositoryWork<T> {
    T run(Repository repo) throws IOException;
  }

  ObjectId head() {
    return withRepository(repo -> repo.exactRef("refs/heads/" + app.config().dataBranch()).getObjectId().copy());
  }

  /** The commits after {@code since} up to the head, newest first, following first parents. */
  List<RevCommit> commitsSince(ObjectId since) {
    return withRepository(repo -> {
      List<RevCommit> out = new ArrayList<>();
      try (RevWalk walk = new RevWalk(repo)) {
        RevCommit c = walk.parseCommit(head());
        while (since == null || !c.getId().equals(since)) {
          out.add(c);
          if (c.getParentCount() == 0) {
            break;
          }
          c = walk.parseCommit(c.getParent(0));
        }
      }
      return out;
    });
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

  /** The file at {@code path} in the head commit, or null. */
  String fileAtHead(String path) {
    Map<String, String> files = filesAt(head());
    return files.get(path);
  }

  boolean existsAtHead(String path) {
    return fileAtHead(path) != null;
  }

  /** Every file of a commit: path to content. */
  Map<String, String> filesAt(ObjectId commit) {
    return withRepository(repo -> {
      Map<String, String> out = new LinkedHashMap<>();
      try (ObjectReader reader = repo.newObjectReader(); RevWalk walk = new RevWalk(reader);
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

  <T> T recordAtHead(Sheet sheet, String key, Class<T> type) {
    String content = fileAtHead(sheet.path(key));
    return content == null ? null : type.cast(codec.decode(sheet, content.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Commits records straight into the data repository, behind the app's back (as a hand-made push
   * would), then makes the app catch up: its git writer finds the branch moved on the next write,
   * answers that write {@code 503 write_conflict} and reloads (unless the replica's periodic
   * catch-up read the commit first); later writes see the records.
   * {@code nudgerToken}/{@code nudgerSlug} name a member whose bio the nudge write changes.
   */
  void commitBehindTheAppsBack(List<RecordChange> changes, String nudgerToken, String nudgerSlug) {
    withRepository(repo -> {
      List<PathChange> paths = new ArrayList<>();
      for (RecordChange c : changes) {
        paths.add(c.isDelete() ? PathChange.delete(c.path()) : PathChange.put(c.path(), codec.encode(c.sheet(), c.record())));
      }
      try (GitTreeWriter writer = new GitTreeWriter(repo, app.config().dataBranch())) {
        PersonIdent ident = new PersonIdent("Test Harness", "harness" + NOREPLY, Instant.now(), ZoneOffset.UTC);
        CommitResult result = writer.commit(writer.head(), paths, ident, "harness: direct edit\n");
        assertThat(result).isInstanceOf(CommitResult.Committed.class);
      }
      return null;
    });
    String bio = "nudge " + nudges.incrementAndGet() + " " + UUID.randomUUID();
    HttpResponse<Buffer> nudge = patch("/api/people/" + nudgerSlug, nudgerToken, new JsonObject().put("bio", bio));
    // The replica's periodic catch-up (every 5 s) may have read the commit first: the nudge then
    // lands on top of it. Either way the app ends up holding the repository's head.
    if (nudge.statusCode() != 200) {
      error(nudge, 503, "write_conflict");
    }
    assertThat(app.publicState().current().commit()).isEqualTo(head().name());
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
