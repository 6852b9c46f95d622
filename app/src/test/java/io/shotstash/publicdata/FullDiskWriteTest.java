package io.shotstash.publicdata;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.db.Database;
import io.shotstash.publicdata.records.Person;
import io.shotstash.testing.WithAppOnSmallDisk;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Public-data writes when the data repository's disk is full (the data folder is a 48 MiB tmpfs,
 * filled to the last byte): each write answers 503 {@code storage_full} with Retry-After, and nothing
 * moved: not the branch, not the in-memory state, not PostgreSQL. Once space is back the next
 * write succeeds (the writer is not wedged) and {@code git fsck} finds the repository sound.
 */
class FullDiskWriteTest extends WithAppOnSmallDisk {
  @BeforeAll
  static void start() {
    startOnSmallDisk(Map.of());
  }

  static ObjectId branchHead() throws IOException {
    try (Repository repo = app.openRepository()) {
      return repo.exactRef(Constants.R_HEADS + app.config().dataBranch()).getObjectId();
    }
  }

  static HttpResponse<Buffer> rename(String fullName) {
    return app.client().patch("/api/people/ada").bearerTokenAuthentication(admin)
        .sendJsonObject(new JsonObject().put("fullName", fullName)).await();
  }

  static HttpResponse<Buffer> createHopper() {
    return app.client().post("/api/people").bearerTokenAuthentication(admin)
        .sendJsonObject(new JsonObject().put("slug", "hopper").put("fullName", "Grace Hopper")
            .put("email", "hopper@example.org").put("password", "hopper password 1").put("accountLevel", "user"))
        .await();
  }

  static long privateRowsOf(String email) throws SQLException {
    try (Connection c = Database.connect(app.db().url());
        PreparedStatement s = c.prepareStatement("SELECT count(*) FROM private_profiles WHERE email = ?")) {
      s.setString(1, email);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return r.getLong(1);
      }
    }
  }

  static void assertStorageFull(HttpResponse<Buffer> r) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(503);
    assertThat(r.getHeader("Retry-After")).isEqualTo("60");
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getBoolean("success")).isFalse();
    assertThat(body.getJsonObject("error").getString("code")).isEqualTo("storage_full");
  }

  /** Files in the repository that are neither git's own nor a finished object: leftovers of a failed write. */
  static List<String> strayFiles() throws IOException {
    Path repo = app.config().dataRepo();
    try (Stream<Path> files = Files.walk(repo)) {
      return files.filter(Files::isRegularFile).map(p -> repo.relativize(p).toString())
          .filter(p -> p.endsWith(".lock") || p.contains("/noz") || p.contains("tmp")
              || (p.startsWith("objects/") && !p.startsWith("objects/pack/") && !p.startsWith("objects/info/")
                  && !p.matches("objects/[0-9a-f]{2}/[0-9a-f]{38}")))
          .toList();
    }
  }

  /** {@code git fsck --full} with the git command line: exit status and output. */
  static String fsck() throws IOException, InterruptedException {
    Process p = new ProcessBuilder("git", "--git-dir=" + app.config().dataRepo(), "fsck", "--full", "--no-dangling")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(out).isZero();
    return out;
  }

  @Test
  void writesOnAFullDiskAre503AndChangeNothingThenWorkOnceSpaceIsBack() throws Exception {
    ObjectId head = branchHead();
    PublicState before = app.publicState().current();
    assertThat(before.commit()).isEqualTo(head.name());
    String adaName = before.personBySlug("ada").map(Person::fullName).orElseThrow();

    disk.fill();
    assertStorageFull(rename("Ada on a full disk"));
    // a write with private rows: they are rolled back with it
    assertStorageFull(createHopper());
    // and the writer keeps answering, one command after the other
    assertStorageFull(rename("Ada on a full disk, again"));

    assertThat(branchHead()).isEqualTo(head);
    assertThat(app.publicState().current()).isSameAs(before);
    assertThat(app.publicState().current().personBySlug("ada").map(Person::fullName)).contains(adaName);
    assertThat(app.publicState().current().personBySlug("hopper")).isEmpty();
    assertThat(privateRowsOf("hopper@example.org")).isZero();
    assertThat(strayFiles()).isEmpty();

    disk.free();
    HttpResponse<Buffer> renamed = rename("Ada with space");
    assertThat(renamed.statusCode()).as(renamed.bodyAsString()).isEqualTo(200);
    HttpResponse<Buffer> created = createHopper();
    assertThat(created.statusCode()).as(created.bodyAsString()).isEqualTo(201);
    assertThat(privateRowsOf("hopper@example.org")).isEqualTo(1);

    PublicState after = app.publicState().current();
    assertThat(after.personBySlug("ada").map(Person::fullName)).contains("Ada with space");
    assertThat(after.personBySlug("hopper")).isPresent();
    ObjectId moved = branchHead();
    assertThat(after.commit()).isEqualTo(moved.name());
    try (Repository repo = app.openRepository(); RevWalk walk = new RevWalk(repo)) {
      // two commits on top of the head before the disk filled: the refused writes left none
      RevCommit top = walk.parseCommit(moved);
      assertThat(walk.parseCommit(top.getParent(0)).getParent(0)).isEqualTo(head);
    }
    assertThat(fsck()).doesNotContainIgnoringCase("error").doesNotContainIgnoringCase("missing")
        .doesNotContainIgnoringCase("broken").doesNotContainIgnoringCase("corrupt");
    assertThat(strayFiles()).isEmpty();
  }
}
