package io.shotstash.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.publicdata.RecordChange;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.TomlCodec;
import io.shotstash.publicdata.git.CommitResult;
import io.shotstash.publicdata.git.GitTreeWriter;
import io.shotstash.publicdata.git.PathChange;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * {@link JsonApi} plus the app's data repository: reads of what git holds (the head, the commits
 * since a point, a file or record at a commit) and records committed behind the app's back, the way
 * a hand-made push would. What the community and moderation route harnesses share.
 */
public class DataApi extends JsonApi {
  public static final String PASSWORD = "member password 123";
  public static final String NOREPLY = "@users.noreply.codeforphilly.org";

  public final TomlCodec codec = new TomlCodec();
  private final AtomicInteger nudges = new AtomicInteger();

  public DataApi(TestApp app) {
    super(app);
  }

  public String idOf(String slug) {
    return app.publicState().current().personBySlug(slug).orElseThrow().id();
  }

  // ---- git ----

  public <T> T withRepository(RepositoryWork<T> work) {
    try (Repository repo = app.openRepository()) {
      return work.run(repo);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public interface RepositoryWork<T> {
    T run(Repository repo) throws IOException;
  }

  public ObjectId head() {
    return withRepository(repo -> repo.exactRef("refs/heads/" + app.config().dataBranch()).getObjectId().copy());
  }

  /** The commits after {@code since} (null: all of them) up to the head, newest first, following first parents. */
  public List<RevCommit> commitsSince(ObjectId since) {
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

  /** The file at {@code path} in {@code commit} (as {@code git show <commit>:<path>}), or null. */
  public String fileAt(ObjectId commit, String path) {
    return withRepository(repo -> {
      try (RevWalk walk = new RevWalk(repo);
          TreeWalk tree = TreeWalk.forPath(repo, path,
              walk.parseCommit(commit).getTree())) {
        return tree == null ? null : new String(repo.open(tree.getObjectId(0)).getBytes(), StandardCharsets.UTF_8);
      }
    });
  }

  /** The file at {@code path} in the head commit, or null. */
  public String fileAtHead(String path) {
    return fileAt(head(), path);
  }

  public <T> T recordAtHead(Sheet sheet, String key, Class<T> type) {
    String content = fileAtHead(sheet.path(key));
    return content == null ? null : type.cast(codec.decode(sheet, content.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * Commits records straight into the data repository, behind the app's back (as a hand-made push
   * would), then makes the app catch up: its git writer finds the branch moved on the next write,
   * takes the commit in, catches up and answers that write {@code 503 write_conflict} (unless its
   * idle check of the branch fence took the commit in first); later writes and reads see the records.
   * {@code nudgerToken}/{@code nudgerSlug} name a member whose bio the nudge write changes.
   */
  public void commitBehindTheAppsBack(List<RecordChange> changes, String nudgerToken, String nudgerSlug) {
    withRepository(repo -> {
      List<PathChange> paths = new ArrayList<>();
      for (RecordChange c : changes) {
        paths.add(
            c.isDelete() ? PathChange.delete(c.path()) : PathChange.put(c.path(), codec.encode(c.sheet(), c.record())));
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
    // The writer's idle fence check (every 5 s) may have taken the commit in first: the nudge then
    // lands on top of it. Either way the app ends up holding the repository's head.
    if (nudge.statusCode() != 200) {
      error(nudge, 503, "write_conflict");
    }
    assertThat(app.publicState().current().commit()).isEqualTo(head().name());
  }
}
