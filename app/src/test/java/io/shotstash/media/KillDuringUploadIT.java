package io.shotstash.media;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.ClusterNodes;
import io.shotstash.testing.ClusterNodes.Node;
import io.shotstash.testing.Folders;
import io.shotstash.testing.Teardown;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code kill -9} of the real app (the jar, its own JVM) in the middle of a 1 GiB library upload and
 * of a worker's output upload: after the restart no partial file, file row or version is left, the
 * temporary files are gone, and the job whose output was cut off goes back to the queue by the
 * sweeper and is claimed again.
 */
@Timeout(300)
class KillDuringUploadIT {
  static final long GIB = 1L << 30;
  static Vertx vertx;
  static ClusterNodes app;
  static Node node;
  static String admin;
  /** The folder every upload goes to (an upload needs one). */
  static String folder;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    app = ClusterNodes.create(vertx, ClusterNodes.jar(), 1, Map.of("SHOTSTASH_PIPELINE_SWEEP_SECONDS", "1"),
        List.of("-Xmx256m"), false);
    admin = app.startFirst(Duration.ofSeconds(90));
    node = app.node(0);
    folder = Folders.create(node.http, admin, "inputs");
  }

  @AfterAll
  static void stop() {
    Teardown.closeAll(app, Teardown.of(vertx));
  }

  private static Path media() {
    return app.dataDir().resolve("media");
  }

  /** What tmp/ holds, with sizes and times, for a failure's message. */
  private static String temporaryFiles() throws IOException {
    try (Stream<Path> files = Files.list(media().resolve("tmp"))) {
      return files.map(p -> p.getFileName() + " " + p.toFile().length() + " B, modified "
          + java.time.Instant.ofEpochMilli(p.toFile().lastModified())).toList() + "; the app's log: "
          + Files.readString(node.log()).lines().filter(l -> l.contains("emporary") || l.contains("Started"))
              .toList();
    }
  }

  private static long filesIn(String folder) throws IOException {
    Path dir = media().resolve(folder);
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.count();
    }
  }

  private static long largestTemporaryFile() {
    try (Stream<Path> files = Files.list(media().resolve("tmp"))) {
      return files.mapToLong(p -> p.toFile().length()).max().orElse(0);
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * Sends the head of a request with a {@code Content-Length} of {@code size}, then zeros, from a
   * thread of its own, until the connection breaks (the app is killed under it).
   */
  private static void streamUntilBroken(ExecutorService thread, String head, long size) {
    thread.submit(() -> {
      try (Socket socket = new Socket("127.0.0.1", node.httpPort)) {
        OutputStream out = socket.getOutputStream();
        out.write((head + "Content-Length: " + size + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        byte[] chunk = new byte[1 << 20];
        for (long sent = 0; sent < size; sent += chunk.length) {
          out.write(chunk);
        }
      } catch (IOException expected) {
        // the app went away mid-body
      }
      return null;
    });
  }

  /** Kills the app once a temporary file holds more than {@code bytes}, then starts it again. */
  private static void killOnceWritten(long bytes) {
    app.eventually("the upload to be under way", Duration.ofSeconds(60), () -> largestTemporaryFile() > bytes);
    node.kill();
    assertThat(largestTemporaryFile()).as("a partial file was left by the kill").isGreaterThan(bytes);
    node.start();
    app.eventually("the app to serve again", Duration.ofSeconds(90), node::ready);
  }

  @Test
  void aKillDuringALibraryUploadLeavesNothingBehind() throws Exception {
    long originalsBefore = filesIn("originals");
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      streamUntilBroken(thread,
          "POST /api/v1/files?folderId=" + folder + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + admin
              + "\r\nContent-Type: video/mp4\r\nX-File-Name: big.mp4\r\n",
          GIB);
      killOnceWritten(64L << 20);
    } finally {
      thread.shutdownNow();
    }
    assertThat(filesIn("tmp")).as("temporary files are cleaned at start: %s", temporaryFiles()).isZero();
    assertThat(filesIn("originals")).isEqualTo(originalsBefore);
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name = 'big.mp4'")).isZero();
  }

  @Test
  void aKillDuringAnOutputUploadRequeuesTheJob() throws Exception {
    String kind = "acme/kill-test";
    JsonObject reg = node.http.post("/api/v1/pipeline/workers/register")
        .putHeader("X-Worker-Bootstrap-Token", ClusterNodes.BOOTSTRAP)
        .sendJsonObject(new JsonObject().put("manifest", new JsonObject().put("name", "kill-test").put("version", "1")
            .put("kinds", new JsonArray().add(kind)).put("contract", 1)))
        .await().bodyAsJsonObject();
    String token = reg.getString("token");
    HttpResponse<Buffer> up = node.http.post("/api/v1/files").bearerTokenAuthentication(admin)
        .addQueryParam("folderId", folder).putHeader("Content-Type", "video/mp4").putHeader("X-File-Name", "small.mp4")
        .sendBuffer(Buffer.buffer("a small input")).await();
    assertThat(up.statusCode()).as(up.bodyAsString()).isEqualTo(201);
    String fileId = up.bodyAsJsonObject().getJsonObject("data").getString("id");
    JsonObject enqueued = node.http.post("/graphql").bearerTokenAuthentication(admin)
        .sendJsonObject(
            new JsonObject().put("query", "mutation($f: ID!, $k: String!) { enqueueJob(fileId: $f, kind: $k) { id } }")
                .put("variables", new JsonObject().put("f", fileId).put("k", kind)))
        .await().bodyAsJsonObject();
    String jobId = enqueued.getJsonObject("data").getJsonObject("enqueueJob").getString("id");
    HttpResponse<Buffer> next =
        node.http.post("/api/v1/pipeline/jobs/next").putHeader("X-Worker-Token", token).send().await();
    assertThat(next.statusCode()).as(next.bodyAsString()).isEqualTo(200);
    String claim = next.bodyAsJsonObject().getJsonObject("job").getString("claimToken");

    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      streamUntilBroken(thread, "PUT /api/v1/pipeline/jobs/" + jobId + "/output HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "X-Worker-Token: " + token + "\r\nX-Claim-Token: " + claim + "\r\nContent-Type: video/mp4\r\n"
          + "X-Output-Ext: mp4\r\n", 512L << 20);
      killOnceWritten(32L << 20);
    } finally {
      thread.shutdownNow();
    }
    assertThat(filesIn("tmp")).as("temporary files are cleaned at start: %s", temporaryFiles()).isZero();
    assertThat(filesIn("versions")).isZero();
    assertThat(app.db().number("SELECT count(*) FROM processed_versions WHERE job_id = '" + jobId + "'")).isZero();

    // the claim was never finished: once its lease is over, the sweeper puts the job back
    app.db()
        .execute("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '10 minutes' WHERE id = '" + jobId + "'");
    app.eventually("the sweeper to requeue the job", Duration.ofSeconds(30),
        () -> "queued".equals(app.db().text("SELECT status FROM pipeline_jobs WHERE id = '" + jobId + "'")));
    assertThat(app.db().number("SELECT count(*) FROM pipeline_jobs WHERE id = '" + jobId + "' "
        + "AND output_storage_key IS NULL AND version_id IS NULL")).isEqualTo(1);
    // its retry waits 30 s (the back-off of a second attempt): move that time too, then claim it again
    app.db().execute("UPDATE pipeline_jobs SET run_after = now() - interval '1 second' WHERE id = '" + jobId + "'");
    AtomicReference<HttpResponse<Buffer>> claimed = new AtomicReference<>();
    app.eventually("the job to be claimed again", Duration.ofSeconds(30), () -> {
      claimed.set(node.http.post("/api/v1/pipeline/jobs/next").putHeader("X-Worker-Token", token).send().await());
      return claimed.get().statusCode() == 200;
    });
    HttpResponse<Buffer> again = claimed.get();
    assertThat(again.bodyAsJsonObject().getJsonObject("job").getString("id")).isEqualTo(jobId);
    assertThat(again.bodyAsJsonObject().getJsonObject("job").getInteger("attempt")).isEqualTo(2);
  }
}
