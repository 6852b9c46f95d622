package io.shotstash.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.db.Database;
import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.ContractWorker.Answer;
import io.shotstash.testing.ContractWorker.Claimed;
import io.shotstash.testing.Folders;
import io.shotstash.testing.RawUpload;
import io.shotstash.testing.WithAppOnSmallDisk;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A worker's output on a real full disk (the data folder is a 48 MiB tmpfs): the upload answers
 * 507 {@code INSUFFICIENT_STORAGE} in the contract's shape with Retry-After, nothing is kept or
 * recorded, the claim holds, and the same upload goes through once space is back.
 */
class FullDiskOutputTest extends WithAppOnSmallDisk {
  static final String BOOT = "full-disk-output-bootstrap-token-0123456";
  static final long MIB = 1024L * 1024L;

  /** The folder every upload goes to (an upload needs one). */
  static String folder;

  @BeforeAll
  static void start() {
    startOnSmallDisk(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOT));
    folder = Folders.create(app.client(), admin, "inputs");
  }

  static Claimed claimed() {
    return Claimed.fresh(app, BOOT, admin, folder, "full-disk-" + UUID.randomUUID().toString().substring(0, 8));
  }

  static List<Path> list(String folder) throws IOException {
    return disk.media(folder);
  }

  /** What PostgreSQL holds for the claim's output: versions of the file, and the job's pending output. */
  record Recorded(long versions, boolean pendingOutput) {}

  static Recorded recorded(Claimed c) throws SQLException {
    try (Connection conn = Database.connect(app.db().url());
        PreparedStatement s = conn.prepareStatement(
            "SELECT (SELECT count(*) FROM processed_versions WHERE file_id = ?::uuid),"
                + " (SELECT output_version_id IS NOT NULL FROM pipeline_jobs WHERE id = ?::uuid)")) {
      s.setString(1, c.fileId());
      s.setString(2, c.id());
      try (ResultSet r = s.executeQuery()) {
        r.next();
        return new Recorded(r.getLong(1), r.getBoolean(2));
      }
    }
  }

  static void assertInsufficientStorage(int status, String version, String retryAfter, JsonObject body) {
    assertThat(status).as("%s", body).isEqualTo(507);
    assertThat(version).isEqualTo("1");
    assertThat(retryAfter).isEqualTo("60");
    assertThat(body.fieldNames()).containsExactlyInAnyOrder("code", "message");
    assertThat(body.getString("code")).isEqualTo("INSUFFICIENT_STORAGE");
  }

  static void assertClaimHoldsWithoutOutput(Claimed c) {
    Answer complete = c.worker().complete(c.id(), c.claim());
    assertThat(complete.status()).as(complete.toString()).isEqualTo(409);
    assertThat(complete.code()).isEqualTo("OUTPUT_MISSING");
    assertThat(c.worker().progress(c.id(), c.claim(), 50).status()).isEqualTo(200);
  }

  @Test
  void anOutputBiggerThanTheFreeSpaceIs507AndTheClaimHolds() throws Exception {
    Claimed c = claimed();
    List<Path> versions = list("versions");
    long free = disk.usableBytes();

    RawUpload.Answer a = RawUpload.send(app.port(), "PUT", ContractWorker.BASE + "/jobs/" + c.id() + "/output",
        Map.of("X-Worker-Token", c.worker().token(), "X-Claim-Token", c.claim(), "Content-Type", "video/mp4",
            "X-Output-Ext", "mp4"),
        free + 16 * MIB);

    assertInsufficientStorage(a.status(), a.header("X-Shotstash-Pipeline"), a.header("Retry-After"),
        new JsonObject(a.body()));
    assertThat(a.header("Cache-Control")).isEqualTo("no-store");
    assertThat(list("versions")).isEqualTo(versions);
    assertThat(list("tmp")).isEmpty();
    assertThat(disk.usableBytes()).isGreaterThanOrEqualTo(free - MIB);
    assertThat(recorded(c)).isEqualTo(new Recorded(0, false));
    assertClaimHoldsWithoutOutput(c);

    // the worker retries with what fits: taken, recorded, completed
    byte[] bytes = new byte[2 * (int) MIB];
    bytes[0] = 9;
    Answer ok = c.worker().output(c.id(), c.claim(), "video/mp4", "mp4", Buffer.buffer(bytes));
    assertThat(ok.status()).as(ok.toString()).isEqualTo(200);
    assertThat(disk.path().resolve("media/versions/" + ok.json().getString("versionId") + ".mp4"))
        .hasBinaryContent(bytes);
    Answer done = c.worker().complete(c.id(), c.claim());
    assertThat(done.status()).as(done.toString()).isEqualTo(200);
    assertThat(recorded(c).versions()).isEqualTo(1);
  }

  @Test
  void onAFullDiskEvenASmallOutputIs507AndTheSameUploadWorksOnceSpaceIsBack() throws Exception {
    Claimed c = claimed();
    List<Path> versions = list("versions");
    disk.fill();

    // a small declared body is taken whole first (the claim is checked once it is in)
    Answer small = c.worker().output(c.id(), c.claim(), "text/vtt", "vtt", Buffer.buffer("WEBVTT\n"));
    assertInsufficientStorage(small.status(), small.header("X-Shotstash-Pipeline"), small.header("Retry-After"),
        small.json());
    assertThat(list("versions")).isEqualTo(versions);
    assertThat(list("tmp")).isEmpty();
    assertThat(recorded(c)).isEqualTo(new Recorded(0, false));
    assertClaimHoldsWithoutOutput(c);

    disk.free();
    Answer ok = c.worker().output(c.id(), c.claim(), "text/vtt", "vtt", Buffer.buffer("WEBVTT\n"));
    assertThat(ok.status()).as(ok.toString()).isEqualTo(200);
    assertThat(c.worker().complete(c.id(), c.claim()).status()).isEqualTo(200);
  }
}
