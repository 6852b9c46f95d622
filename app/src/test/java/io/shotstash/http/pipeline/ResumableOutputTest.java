package io.shotstash.http.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.Requests;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.testing.ContractWorker;
import io.shotstash.testing.ContractWorker.Answer;
import io.shotstash.testing.ContractWorker.Claimed;
import io.shotstash.testing.CuttableProxy;
import io.shotstash.testing.Folders;
import io.shotstash.testing.RawHttp;
import io.shotstash.testing.WithSignedInApp;
import io.tus.java.client.TusClient;
import io.tus.java.client.TusUpload;
import io.tus.java.client.TusUploader;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A worker's output over tus (docs/worker-contract.md → Resumable outputs), over real HTTP against
 * the app and PostgreSQL: sent in pieces and resumed after a cut connection, then completed with the
 * version's bytes identical; the claim checked at every request, an over claim answered with the
 * contract's 409 and its partial bytes gone; another worker's token, the size limit, and complete
 * before the upload is finished.
 */
@Timeout(300)
class ResumableOutputTest extends WithSignedInApp {
  static final String BOOT = "resumable-output-bootstrap-token-0123456789";
  static final long MB = 1L << 20;
  static final AtomicInteger COUNTER = new AtomicInteger();
  static String folder;
  static CuttableProxy proxy;

  @BeforeAll
  static void start() throws IOException {
    startSignedIn(Map.of("WORKER_BOOTSTRAP_TOKEN", BOOT, "SHOTSTASH_PIPELINE_MAX_OUTPUT_MB", "16"));
    folder = Folders.create(app.client(), admin, "inputs");
    proxy = new CuttableProxy(app.port());
  }

  @AfterAll
  static void stopProxy() {
    proxy.close();
  }

  static Claimed claimed(String base) {
    return Claimed.fresh(app, BOOT, admin, folder, base + "-" + COUNTER.incrementAndGet());
  }

  static byte[] noise(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static Map<String, String> tus(String claim) {
    Map<String, String> h = new HashMap<>();
    h.put("Tus-Resumable", "1.0.0");
    h.put("X-Claim-Token", claim);
    return h;
  }

  /** POST jobs/:id/output/uploads for an MP4 of {@code length} bytes. */
  static Answer create(ContractWorker w, String job, String claim, long length) {
    Map<String, String> h = tus(claim);
    h.put("Upload-Length", Long.toString(length));
    h.put("Upload-Metadata", "filetype " + b64("video/mp4") + ",ext " + b64("mp4"));
    return w.call(HttpMethod.POST, "/jobs/" + job + "/output/uploads", h, null);
  }

  /** The upload's path under the contract's base, from a creation's Location. */
  static String pathOf(Answer created) {
    assertThat(created.status()).as(created.toString()).isEqualTo(201);
    String location = created.header("Location");
    assertThat(location).startsWith(ContractWorker.BASE + "/jobs/");
    return location.substring(ContractWorker.BASE.length());
  }

  static Answer patch(ContractWorker w, String path, String claim, long offset, byte[] bytes) {
    Map<String, String> h = tus(claim);
    h.put("Upload-Offset", Long.toString(offset));
    h.put("Content-Type", "application/offset+octet-stream");
    return w.call(HttpMethod.PATCH, path, h, Buffer.buffer(bytes));
  }

  /** Creates a 2 MB output upload under {@code claim} and sends its first MB (204); answers its path. */
  static String halfSent(ContractWorker w, String job, String claim, long seed) {
    String path = pathOf(create(w, job, claim, 2 * MB));
    assertThat(patch(w, path, claim, 0, noise((int) MB, seed)).status()).isEqualTo(204);
    return path;
  }

  /** The job's lease ran out: the sweeper puts it back, ready to be claimed again at once. */
  static void leaseRanOut(String jobId) {
    app.db().execute("UPDATE pipeline_jobs SET heartbeat_at = now() - interval '1 hour' WHERE id = '" + jobId + "'");
    app.vertx().eventBus().<JsonObject>request(Addresses.PIPELINE_SWEEP, new JsonObject()).await();
    app.db().execute("UPDATE pipeline_jobs SET run_after = now() WHERE id = '" + jobId + "'");
  }

  /** A PATCH's head by hand, declaring {@code length} bytes of body (for bodies no client here sends as wanted). */
  static String rawPatchHead(ContractWorker w, String path, String claim, long offset, long length) {
    return "PATCH " + ContractWorker.BASE + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Worker-Token: " + w.token()
        + "\r\nX-Claim-Token: " + claim + "\r\nTus-Resumable: 1.0.0\r\nUpload-Offset: " + offset
        + "\r\nContent-Type: application/offset+octet-stream\r\nContent-Length: " + length + "\r\n\r\n";
  }

  static Answer head(ContractWorker w, String path, String claim) {
    return w.call(HttpMethod.HEAD, path, tus(claim), null);
  }

  static void assertRefusal(Answer a, int status, String code) {
    assertThat(a.status()).as(a.toString()).isEqualTo(status);
    assertThat(a.header("X-Shotstash-Pipeline")).isEqualTo("1");
    assertThat(a.header("X-Shotstash-Error-Code")).isEqualTo(code);
    if (a.body() != null && a.body().length() > 0) {
      assertThat(a.code()).isEqualTo(code);
    }
  }

  static List<String> partials() throws IOException {
    try (Stream<Path> files = Files.list(app.dataDir().resolve("media").resolve("uploads"))) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }

  static String uploadIdOf(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  static void assertGone(String uploadId) throws IOException {
    assertThat(partials()).as("no partial bytes of " + uploadId).noneMatch(n -> n.startsWith(uploadId));
    assertThat(app.db().number("SELECT count(*) FROM tus_uploads WHERE id = '" + uploadId + "'")).isZero();
    assertThat(app.db().number("SELECT count(*) FROM tus_output_uploads WHERE upload_id = '" + uploadId + "'"))
        .isZero();
  }

  /**
   * HEAD until the upload's durable offset passes {@code above}: a PATCH cut off by a dropped
   * connection records the bytes it got once it has forced them to disk, a moment after the cut.
   */
  static long offsetAbove(ContractWorker w, String path, String claim, long above) throws InterruptedException {
    for (int i = 0; i < 400; i++) {
      Answer h = head(w, path, claim);
      assertThat(h.status()).as(h.toString()).isEqualTo(200);
      long offset = Long.parseLong(h.header("Upload-Offset"));
      if (offset > above) {
        return offset;
      }
      Thread.sleep(25);
    }
    throw new AssertionError("the bytes the app wrote before the cut were never recorded");
  }

  @Test
  void anOutputSentInPiecesAndResumedAfterACutCompletesWithIdenticalBytes() throws Exception {
    Claimed c = claimed("pieces");
    ContractWorker w = c.worker();
    byte[] output = noise((int) (6 * MB), 6);
    String path = pathOf(create(w, c.id(), c.claim(), output.length));

    // the first piece whole
    Answer first = patch(w, path, c.claim(), 0, Arrays.copyOfRange(output, 0, (int) MB));
    assertThat(first.status()).as(first.toString()).isEqualTo(204);
    assertThat(first.header("Upload-Offset")).isEqualTo(Long.toString(MB));
    assertThat(first.header("Shotstash-Version-Id")).isNull();

    // the rest in one PATCH through the proxy, cut once the app has written a part of it
    String headText = "PATCH " + ContractWorker.BASE + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "X-Worker-Token: " + w.token() + "\r\nX-Claim-Token: " + c.claim() + "\r\nTus-Resumable: 1.0.0\r\n"
        + "Upload-Offset: " + MB + "\r\nContent-Type: application/offset+octet-stream\r\n"
        + "Content-Length: " + (output.length - MB) + "\r\n\r\n";
    byte[] head = headText.getBytes(StandardCharsets.US_ASCII);
    Path part = app.dataDir().resolve("media").resolve("uploads").resolve(uploadIdOf(path) + ".part");
    try (RawHttp raw = new RawHttp(proxy.port())) {
      raw.send(head);
      raw.send(Arrays.copyOfRange(output, (int) MB, (int) (3 * MB)));
      while (Files.size(part) < 2 * MB) {
        Thread.sleep(10); // until the app wrote a part of this PATCH; nothing is measured
      }
      proxy.cut();
    }
    long offset = offsetAbove(w, path, c.claim(), MB);
    assertThat(offset).as("the bytes before the cut were kept").isLessThanOrEqualTo(3 * MB);

    // complete before the upload is finished: OUTPUT_MISSING, and nothing is lost
    Answer early = w.complete(c.id(), c.claim());
    assertThat(early.status()).as(early.toString()).isEqualTo(409);
    assertThat(early.code()).isEqualTo("OUTPUT_MISSING");
    assertThat(head(w, path, c.claim()).header("Upload-Offset")).isEqualTo(Long.toString(offset));

    // a PATCH from a wrong offset is refused and changes nothing
    assertRefusal(patch(w, path, c.claim(), 0, new byte[10]), 409, "OFFSET_MISMATCH");

    Answer rest = patch(w, path, c.claim(), offset,
        Arrays.copyOfRange(output, (int) offset, output.length));
    assertThat(rest.status()).as(rest.toString()).isEqualTo(204);
    assertThat(rest.header("Upload-Offset")).isEqualTo(Long.toString(output.length));
    String versionId = rest.header("Shotstash-Version-Id");
    assertThat(versionId).isNotNull();
    Answer again = head(w, path, c.claim());
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.header("Shotstash-Version-Id")).isEqualTo(versionId);

    Answer done = w.complete(c.id(), c.claim());
    assertThat(done.status()).as(done.toString()).isEqualTo(200);
    assertThat(done.json().getString("versionId")).isEqualTo(versionId);
    Path stored = app.dataDir().resolve("media").resolve("versions").resolve(versionId + ".mp4");
    assertThat(sha256(Files.readAllBytes(stored))).isEqualTo(sha256(output));
    assertThat(app.db().text("SELECT mime_type FROM processed_versions WHERE id = '" + versionId + "'"))
        .isEqualTo("video/mp4");
    assertThat(app.db().number("SELECT size FROM processed_versions WHERE id = '" + versionId + "'"))
        .isEqualTo(output.length);
    assertThat(partials()).noneMatch(n -> n.startsWith(uploadIdOf(path)));
  }

  @Test
  void aStandardTusClientSendsAnOutputWithTheContractsHeaders() throws Exception {
    Claimed c = claimed("tus-client");
    byte[] output = noise((int) (3 * MB), 12);
    Path file = Files.createTempFile("output-", ".mp4");
    try {
      Files.write(file, output);
      TusClient client = new TusClient();
      client.setUploadCreationURL(new URL("http://127.0.0.1:" + app.port() + ContractWorker.BASE + "/jobs/"
          + c.id() + "/output/uploads"));
      client.setHeaders(Map.of("X-Worker-Token", c.worker().token(), "X-Claim-Token", c.claim()));
      TusUpload upload = new TusUpload(file.toFile());
      upload.setMetadata(Map.of("filetype", "video/mp4", "ext", "mp4"));
      TusUploader uploader = client.createUpload(upload);
      uploader.setChunkSize((int) MB);
      uploader.setRequestPayloadSize((int) MB); // three PATCHes (sent as POST with X-HTTP-Method-Override)
      while (uploader.uploadChunk() > -1) {
        // next piece
      }
      uploader.finish();
      String path = uploader.getUploadURL().getPath().substring(ContractWorker.BASE.length());
      String versionId = head(c.worker(), path, c.claim()).header("Shotstash-Version-Id");
      assertThat(versionId).isNotNull();

      Answer done = c.worker().complete(c.id(), c.claim());
      assertThat(done.status()).as(done.toString()).isEqualTo(200);
      assertThat(done.json().getString("versionId")).isEqualTo(versionId);
      Path stored = app.dataDir().resolve("media").resolve("versions").resolve(versionId + ".mp4");
      assertThat(sha256(Files.readAllBytes(stored))).isEqualTo(sha256(output));
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void aPatchAfterTheJobWasCancelledIsJobTerminalAndLeavesNoBytes() throws Exception {
    Claimed c = claimed("cancelled");
    ContractWorker w = c.worker();
    String path = halfSent(w, c.id(), c.claim(), 1);
    assertThat(partials()).anyMatch(n -> n.startsWith(uploadIdOf(path)));

    Requests.ask(app.vertx(), Addresses.PIPELINE_QUEUE, QueueActions.CANCEL, new JsonObject().put("jobId", c.id()))
        .await();

    assertRefusal(patch(w, path, c.claim(), MB, noise((int) MB, 2)), 409, "JOB_TERMINAL");
    assertGone(uploadIdOf(path));
    assertRefusal(head(w, path, c.claim()), 404, "UPLOAD_NOT_FOUND");
  }

  @Test
  void aPatchWithAStaleClaimIsClaimStaleAndLeavesNoBytes() throws Exception {
    Claimed c = claimed("stale");
    ContractWorker w = c.worker();
    String path = halfSent(w, c.id(), c.claim(), 3);

    // the lease ran out: the sweeper puts the job back, and the same worker claims it again
    leaseRanOut(c.id());
    Answer again = w.next();
    assertThat(again.status()).as(again.toString()).isEqualTo(200);
    String newClaim = again.job().getString("claimToken");

    assertRefusal(patch(w, path, c.claim(), MB, noise((int) MB, 4)), 409, "CLAIM_STALE");
    assertGone(uploadIdOf(path));

    // an upload of the old claim, continued with the new claim, is over as well
    String older = halfSent(w, c.id(), newClaim, 5);
    leaseRanOut(c.id());
    String third = w.next().job().getString("claimToken");
    assertRefusal(head(w, older, third), 409, "CLAIM_STALE");
    assertGone(uploadIdOf(older));
  }

  @Test
  void anUploadWhoseClaimEndedIsSweptWithoutAnyRequestOnIt() throws Exception {
    Claimed c = claimed("swept");
    ContractWorker w = c.worker();
    String path = halfSent(w, c.id(), c.claim(), 10);
    Claimed held = claimed("kept");
    String kept = halfSent(held.worker(), held.id(), held.claim(), 11);

    // the worker gives the job back and never asks about its upload again
    assertThat(w.release(c.id(), c.claim()).status()).isEqualTo(200);
    app.vertx().eventBus().<JsonObject>request(Addresses.MEDIA_UPLOADS_SWEEP, new JsonObject()).await();

    assertGone(uploadIdOf(path));
    Answer still = head(held.worker(), kept, held.claim());
    assertThat(still.status()).as("an upload whose claim holds stays").isEqualTo(200);
    assertThat(still.header("Upload-Offset")).isEqualTo(Long.toString(MB));
  }

  @Test
  void anotherWorkersTokenFindsNoUploadAndChangesNothing() throws Exception {
    Claimed c = claimed("owner");
    Claimed other = claimed("intruder");
    String path = halfSent(c.worker(), c.id(), c.claim(), 7);

    // creating an upload for a job one does not hold: the plain output's answer
    assertRefusal(create(other.worker(), c.id(), other.claim(), MB), 409, "CLAIM_STALE");
    // the upload of another worker does not exist for it, whatever the claim token
    assertRefusal(patch(other.worker(), path, c.claim(), MB, noise((int) MB, 8)), 404, "UPLOAD_NOT_FOUND");
    assertRefusal(head(other.worker(), path, other.claim()), 404, "UPLOAD_NOT_FOUND");
    Answer delete = other.worker().call(HttpMethod.DELETE, path, tus(c.claim()), null);
    assertRefusal(delete, 404, "UPLOAD_NOT_FOUND");
    // nor under another job's path
    String elsewhere = "/jobs/" + other.id() + "/output/uploads/" + uploadIdOf(path);
    assertRefusal(head(c.worker(), elsewhere, c.claim()), 404, "UPLOAD_NOT_FOUND");

    Answer mine = head(c.worker(), path, c.claim());
    assertThat(mine.status()).isEqualTo(200);
    assertThat(mine.header("Upload-Offset")).isEqualTo(Long.toString(MB));
  }

  @Test
  void aRefusedPatchIsReadWhileItsBodyIsStillComing() throws Exception {
    Claimed c = claimed("sender");
    Claimed other = claimed("stranger");
    String path = halfSent(c.worker(), c.id(), c.claim(), 12);
    // more than loopback's socket buffers hold: a server that stopped reading at the refusal would
    // block this send, then reset the connection and lose its answer
    byte[] body = noise((int) (12 * MB), 13);
    try (RawHttp raw = new RawHttp(app.port())) {
      raw.send(rawPatchHead(other.worker(), path, c.claim(), MB, body.length));
      raw.send(body);
      RawHttp.Response refused = raw.read();
      assertThat(refused.status()).as(refused.toString()).isEqualTo(404);
      assertThat(refused.header("X-Shotstash-Error-Code")).isEqualTo("UPLOAD_NOT_FOUND");
      assertThat(refused.header("Connection")).isEqualTo("close");
    }
    assertThat(head(c.worker(), path, c.claim()).header("Upload-Offset")).isEqualTo(Long.toString(MB));
  }

  @Test
  void theOutputLimitAppliesAtCreationAndAtEveryPatch() throws Exception {
    Claimed c = claimed("limit");
    ContractWorker w = c.worker();
    assertRefusal(create(w, c.id(), c.claim(), 16 * MB + 1), 413, "OUTPUT_TOO_LARGE");
    assertThat(app.db().number("SELECT count(*) FROM tus_output_uploads o JOIN tus_uploads u ON u.id = o.upload_id "
        + "WHERE o.job_id = '" + c.id() + "'")).isZero();

    String path = pathOf(create(w, c.id(), c.claim(), MB));
    assertRefusal(patch(w, path, c.claim(), 0, noise((int) MB + 1, 9)), 413, "OUTPUT_TOO_LARGE");
    RawHttp.Response over = RawHttp.exchange(app.port(), rawPatchHead(w, path, c.claim(), 0, 17 * MB));
    assertThat(over.status()).isEqualTo(413);
    assertThat(over.header("X-Shotstash-Error-Code")).isEqualTo("OUTPUT_TOO_LARGE");
    Answer state = head(w, path, c.claim());
    assertThat(state.header("Upload-Offset")).as("nothing of a refused PATCH counts").isEqualTo("0");
  }

  @Test
  void creationChecksTheOutputLikeThePlainUpload() {
    Claimed c = claimed("checks");
    ContractWorker w = c.worker();
    Map<String, String> h = tus(c.claim());
    h.put("Upload-Length", "100");
    h.put("Upload-Metadata", "filetype " + b64("application/x-evil") + ",ext " + b64("mp4"));
    assertRefusal(w.call(HttpMethod.POST, "/jobs/" + c.id() + "/output/uploads", h, null), 400, "INVALID_OUTPUT");
    h.put("Upload-Metadata", "filetype " + b64("video/mp4") + ",ext " + b64("../x"));
    assertRefusal(w.call(HttpMethod.POST, "/jobs/" + c.id() + "/output/uploads", h, null), 400, "INVALID_OUTPUT");
    h.remove("Tus-Resumable");
    assertRefusal(w.call(HttpMethod.POST, "/jobs/" + c.id() + "/output/uploads", h, null), 412,
        "TUS_VERSION_UNSUPPORTED");
    h.put("Tus-Resumable", "1.0.0");
    h.remove("X-Claim-Token");
    assertRefusal(w.call(HttpMethod.POST, "/jobs/" + c.id() + "/output/uploads", h, null), 400,
        "CLAIM_TOKEN_REQUIRED");
  }
}
