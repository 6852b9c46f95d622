package io.shotstash.http.uploads;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Folders;
import io.shotstash.testing.RawHttp;
import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tus routes over real HTTP, one rule per test: discovery, creation (with and without bytes),
 * PATCH and HEAD, exactly one library file per upload, the 409s (a wrong offset, two PATCHes racing
 * at one offset), 413, expiry and the sweeper, termination, and who may (401, 403, 404 for someone
 * else's upload or an unknown folder, CSRF for cookie callers).
 */
@Timeout(120)
class TusUploadHttpTest {
  static final long MAX_MB = 2;
  static TestApp app;
  static String admin;
  static String editor;
  static String otherEditor;
  static String viewer;
  static String folder;

  @BeforeAll
  static void start() {
    app = TestApp.start(Map.of("SHOTSTASH_MAX_UPLOAD_MB", Long.toString(MAX_MB), "SHOTSTASH_UPLOAD_EXPIRY_HOURS", "6"));
    admin = app.setupAndLogin();
    editor = app.createAndLogin(admin, "eve", "editor", "editor password 123");
    otherEditor = app.createAndLogin(admin, "ed", "editor", "editor password 456");
    viewer = app.createAndLogin(admin, "vic", "user", "viewer password 789");
    folder = Folders.create(app.client(), editor, "Rushes");
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static String meta(String name, String folderId) {
    return "filename " + b64(name) + ",filetype " + b64("video/mp4") + ",folderId " + b64(folderId);
  }

  static HttpRequest<Buffer> tus(HttpRequest<Buffer> r, String token) {
    if (token != null) {
      r.bearerTokenAuthentication(token);
    }
    return r.putHeader("Tus-Resumable", "1.0.0");
  }

  static HttpResponse<Buffer> create(String token, long length, String name, String folderId) {
    return tus(app.client().post("/api/v1/uploads"), token).putHeader("Upload-Length", Long.toString(length))
        .putHeader("Upload-Metadata", meta(name, folderId)).send().await();
  }

  /** A new upload of {@code length} bytes by the editor; answers its path. */
  static String created(long length, String name) {
    HttpResponse<Buffer> r = create(editor, length, name, folder);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    return r.getHeader("Location");
  }

  static HttpResponse<Buffer> patch(String token, String path, long offset, byte[] bytes) {
    return tus(app.client().patch(path), token).putHeader("Content-Type", "application/offset+octet-stream")
        .putHeader("Upload-Offset", Long.toString(offset)).sendBuffer(Buffer.buffer(bytes)).await();
  }

  static HttpResponse<Buffer> head(String token, String path) {
    return tus(app.client().head(path), token).send().await();
  }

  static String code(HttpResponse<Buffer> r) {
    return r.bodyAsJsonObject().getJsonObject("error").getString("code");
  }

  static byte[] bytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  static Path uploads() {
    return app.dataDir().resolve("media").resolve("uploads");
  }

  static String id(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  @Test
  void optionsAdvertisesTheProtocolAndItsExtensions() {
    HttpResponse<Buffer> r = app.client().request(io.vertx.core.http.HttpMethod.OPTIONS, "/api/v1/uploads").send()
        .await();
    assertThat(r.statusCode()).isEqualTo(204);
    assertThat(r.getHeader("Tus-Resumable")).isEqualTo("1.0.0");
    assertThat(r.getHeader("Tus-Version")).isEqualTo("1.0.0");
    assertThat(r.getHeader("Tus-Extension")).isEqualTo("creation,creation-with-upload,termination,expiration");
    assertThat(r.getHeader("Tus-Max-Size")).isEqualTo(Long.toString(MAX_MB << 20));
  }

  @Test
  void anUploadInPiecesBecomesExactlyOneLibraryFile() {
    byte[] all = bytes(300_000, 1);
    String path = created(all.length, "pieces.mp4");
    assertThat(path).startsWith("/api/v1/uploads/");
    HttpResponse<Buffer> h0 = head(editor, path);
    assertThat(h0.statusCode()).isEqualTo(200);
    assertThat(h0.getHeader("Upload-Offset")).isEqualTo("0");
    assertThat(h0.getHeader("Upload-Length")).isEqualTo("300000");
    assertThat(h0.getHeader("Cache-Control")).isEqualTo("no-store");
    assertThat(
        Instant.from(java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.parse(h0.getHeader("Upload-Expires"))))
        .isAfter(Instant.now().plus(Duration.ofHours(5)));

    int[] cuts = {0, 1, 100_000, 250_000, all.length};
    String fileId = null;
    for (int i = 0; i + 1 < cuts.length; i++) {
      byte[] piece = java.util.Arrays.copyOfRange(all, cuts[i], cuts[i + 1]);
      HttpResponse<Buffer> r = patch(editor, path, cuts[i], piece);
      assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(204);
      assertThat(r.getHeader("Upload-Offset")).isEqualTo(Integer.toString(cuts[i + 1]));
      assertThat(r.getHeader("Tus-Resumable")).isEqualTo("1.0.0");
      fileId = r.getHeader("Shotstash-File-Id");
      assertThat(fileId == null).as("a file id only on the last PATCH").isEqualTo(i + 2 < cuts.length);
    }
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE id = '" + fileId + "'")).isEqualTo(1);
    HttpResponse<Buffer> download = app.client().get("/media/o/" + fileId).bearerTokenAuthentication(editor).send()
        .await();
    assertThat(download.body().getBytes()).isEqualTo(all);

    // finishing again (a client that missed the answer sends an empty PATCH at the end) changes nothing
    HttpResponse<Buffer> again = patch(editor, path, all.length, new byte[0]);
    assertThat(again.statusCode()).isEqualTo(204);
    assertThat(again.getHeader("Shotstash-File-Id")).isEqualTo(fileId);
    assertThat(head(editor, path).getHeader("Shotstash-File-Id")).isEqualTo(fileId);
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name = 'pieces.mp4'")).isEqualTo(1);
    JsonObject listed = app.client().post("/graphql").bearerTokenAuthentication(editor)
        .sendJsonObject(new JsonObject().put("query", "query($id: ID!) { folder(id: $id) { files { id name } } }")
            .put("variables", new JsonObject().put("id", folder)))
        .await().bodyAsJsonObject();
    assertThat(listed.encode()).contains(fileId);
    assertThat(Files.exists(uploads().resolve(id(path) + ".part"))).isFalse();
    String scrape = app.client().get("/metrics").send().await().bodyAsString();
    assertThat(scrape).contains("shotstash_resumable_uploads_total{outcome=\"created\"")
        .contains("shotstash_resumable_uploads_total{outcome=\"completed\"");
  }

  @Test
  void aCreationMayCarryTheWholeFile() {
    byte[] all = bytes(5_000, 2);
    HttpResponse<Buffer> r = tus(app.client().post("/api/v1/uploads"), editor).putHeader("Upload-Length", "5000")
        .putHeader("Upload-Metadata", meta("oneshot.mp4", folder))
        .putHeader("Content-Type", "application/offset+octet-stream").sendBuffer(Buffer.buffer(all)).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    assertThat(r.getHeader("Upload-Offset")).isEqualTo("5000");
    String fileId = r.getHeader("Shotstash-File-Id");
    assertThat(r.bodyAsJsonObject().getJsonObject("data").getString("fileId")).isEqualTo(fileId);
    assertThat(app.client().get("/media/o/" + fileId).bearerTokenAuthentication(editor).send().await().body()
        .getBytes()).isEqualTo(all);
  }

  @Test
  void aWrongOffsetIs409AndWritesNothing() {
    String path = created(1000, "offsets.mp4");
    HttpResponse<Buffer> ahead = patch(editor, path, 10, bytes(10, 3));
    assertThat(ahead.statusCode()).isEqualTo(409);
    assertThat(code(ahead)).isEqualTo("offset_mismatch");
    assertThat(patch(editor, path, 0, bytes(100, 3)).statusCode()).isEqualTo(204);
    HttpResponse<Buffer> behind = patch(editor, path, 0, bytes(100, 3));
    assertThat(behind.statusCode()).isEqualTo(409);
    assertThat(head(editor, path).getHeader("Upload-Offset")).isEqualTo("100");
  }

  /** A PATCH's head by hand, by {@code token}'s holder, declaring {@code length} bytes of body. */
  static String patchHead(String token, String path, long offset, long length) {
    return "PATCH " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + token
        + "\r\nTus-Resumable: 1.0.0\r\nContent-Type: application/offset+octet-stream\r\nUpload-Offset: " + offset
        + "\r\nContent-Length: " + length + "\r\n\r\n";
  }

  /** Raw HTTP: the head of a PATCH and the first half of its body, the rest held back. */
  static Socket startPatch(String path, long offset, byte[] body, int sendFirst) throws IOException {
    Socket s = new Socket("127.0.0.1", app.port());
    OutputStream out = s.getOutputStream();
    out.write(patchHead(editor, path, offset, body.length).getBytes(StandardCharsets.US_ASCII));
    out.write(body, 0, sendFirst);
    out.flush();
    return s;
  }

  static String response(Socket s) throws IOException {
    s.setSoTimeout(30_000);
    InputStream in = s.getInputStream();
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).contains("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.write(b);
    }
    return head.toString(StandardCharsets.US_ASCII);
  }

  @Test
  void twoPatchesRacingAtOneOffsetOneGets409() throws Exception {
    byte[] body = bytes(400_000, 4);
    String path = created(body.length, "race.mp4");
    try (Socket first = startPatch(path, 0, body, 200_000)) {
      // the first holds the upload's lock while its body is half sent
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (uploadLocksHeld() == 0) {
        assertThat(System.nanoTime()).as("the first PATCH took the lock").isLessThan(deadline);
        Thread.sleep(20);
      }
      HttpResponse<Buffer> second = patch(editor, path, 0, body);
      assertThat(second.statusCode()).as(second.bodyAsString()).isEqualTo(409);
      assertThat(code(second)).isEqualTo("upload_busy");

      first.getOutputStream().write(body, 200_000, body.length - 200_000);
      first.getOutputStream().flush();
      String answer = response(first);
      assertThat(answer).startsWith("HTTP/1.1 204").contains("Upload-Offset: 400000");
    }
    // the loser tries again at the offset it had: too late, someone else wrote there
    HttpResponse<Buffer> late = patch(editor, path, 0, body);
    assertThat(late.statusCode()).isEqualTo(409);
    assertThat(code(late)).isEqualTo("offset_mismatch");
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name = 'race.mp4'")).isEqualTo(1);
  }

  /** Advisory locks of uploads (class 20) held right now in the test's database. */
  static long uploadLocksHeld() {
    return app.db().number("SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
        + "WHERE l.locktype = 'advisory' AND l.classid = 20 AND l.granted AND d.datname = current_database()");
  }

  @Test
  void seventeenPatchesAtOnceEachHoldTheirUploadsLockAndLeaveNoneBehind() throws Exception {
    int uploads = 17;
    byte[] body = bytes(100_000, 7);
    java.util.List<String> paths = new java.util.ArrayList<>();
    java.util.List<Socket> patches = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < uploads; i++) {
        paths.add(created(body.length, "many-" + i + ".mp4"));
        patches.add(startPatch(paths.get(i), 0, body, 50_000));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (uploadLocksHeld() < uploads) {
        assertThat(System.nanoTime()).as("every PATCH took its upload's lock").isLessThan(deadline);
        Thread.sleep(20);
      }
      for (Socket s : patches) {
        s.getOutputStream().write(body, 50_000, body.length - 50_000);
        s.getOutputStream().flush();
        assertThat(response(s)).startsWith("HTTP/1.1 204").contains("Upload-Offset: 100000");
      }
    } finally {
      for (Socket s : patches) {
        s.close();
      }
    }
    assertThat(uploadLocksHeld()).as("no upload lock is left once the PATCHes are answered").isZero();
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name LIKE 'many-%'")).isEqualTo(uploads);
    // and the next upload takes its lock as usual
    String again = created(body.length, "after-many.mp4");
    HttpResponse<Buffer> r = patch(editor, again, 0, body);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(204);
    assertThat(uploadLocksHeld()).isZero();
  }

  @Test
  void overTheLimitIs413() {
    HttpResponse<Buffer> tooLong = create(editor, (MAX_MB << 20) + 1, "huge.mp4", folder);
    assertThat(tooLong.statusCode()).isEqualTo(413);
    assertThat(code(tooLong)).isEqualTo("body_too_large");
    String path = created(100, "small.mp4");
    // a body running past the upload's length, declared or chunked
    HttpResponse<Buffer> declared = patch(editor, path, 0, bytes(101, 5));
    assertThat(declared.statusCode()).isEqualTo(413);
    HttpClientResponse chunked = chunkedPatch(path, bytes(150, 6));
    assertThat(chunked.statusCode()).isEqualTo(413);
    assertThat(head(editor, path).getHeader("Upload-Offset")).isEqualTo("0");
  }

  /** PATCH {@code path} at offset 0 with a body without Content-Length (chunked encoding). */
  static HttpClientResponse chunkedPatch(String path, byte[] body) {
    HttpClientAgent client = app.vertx().createHttpClient();
    try {
      return client.request(HttpMethod.PATCH, app.port(), "127.0.0.1", path).compose(req -> req.setChunked(true)
          .putHeader("Authorization", "Bearer " + editor).putHeader("Tus-Resumable", "1.0.0")
          .putHeader("Content-Type", "application/offset+octet-stream").putHeader("Upload-Offset", "0")
          .send(Buffer.buffer(body))).await();
    } finally {
      client.close().await();
    }
  }

  @Test
  void anExpiredUploadIs410UntilTheSweeperRemovesItsBytes() {
    String path = created(1000, "expiring.mp4");
    assertThat(patch(editor, path, 0, bytes(500, 7)).statusCode()).isEqualTo(204);
    assertThat(Files.exists(uploads().resolve(id(path) + ".part"))).isTrue();
    app.db().execute("UPDATE tus_uploads SET expires_at = now() - interval '1 minute' WHERE id = '" + id(path) + "'");
    HttpResponse<Buffer> gone = head(editor, path);
    assertThat(gone.statusCode()).isEqualTo(410);
    HttpResponse<Buffer> late = patch(editor, path, 500, bytes(500, 7));
    assertThat(late.statusCode()).isEqualTo(410);
    assertThat(code(late)).isEqualTo("upload_expired");

    JsonObject swept = app.vertx().eventBus().<JsonObject>request("media.uploads.sweep", new JsonObject()).await()
        .body();
    assertThat(swept.getInteger("removed")).isGreaterThanOrEqualTo(1);
    assertThat(Files.exists(uploads().resolve(id(path) + ".part"))).isFalse();
    assertThat(Files.exists(uploads().resolve(id(path) + ".offset"))).isFalse();
    assertThat(app.db().number("SELECT count(*) FROM tus_uploads WHERE id = '" + id(path) + "'")).isZero();
    assertThat(head(editor, path).statusCode()).isEqualTo(404);
  }

  @Test
  void terminationRemovesTheBytes() {
    String path = created(1000, "ended.mp4");
    assertThat(patch(editor, path, 0, bytes(600, 8)).statusCode()).isEqualTo(204);
    assertThat(Files.exists(uploads().resolve(id(path) + ".part"))).isTrue();
    HttpResponse<Buffer> ended = tus(app.client().delete(path), editor).send().await();
    assertThat(ended.statusCode()).isEqualTo(204);
    assertThat(ended.getHeader("Tus-Resumable")).isEqualTo("1.0.0");
    assertThat(Files.exists(uploads().resolve(id(path) + ".part"))).isFalse();
    assertThat(Files.exists(uploads().resolve(id(path) + ".offset"))).isFalse();
    assertThat(head(editor, path).statusCode()).isEqualTo(404);
    assertThat(patch(editor, path, 600, bytes(400, 8)).statusCode()).isEqualTo(404);
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name = 'ended.mp4'")).isZero();
  }

  @Test
  void aRefusalIsReadEvenWhileTheRefusedBodyIsStillComing() throws IOException {
    String path = created(1000, "held.mp4");
    // more than loopback's socket buffers hold: a server that stopped reading at its refusal would
    // block this send, then reset the connection and lose its answer
    byte[] body = bytes(12 << 20, 14);
    try (RawHttp raw = new RawHttp(app.port())) {
      raw.send(patchHead(otherEditor, path, 0, body.length));
      raw.send(body);
      RawHttp.Response refused = raw.read();
      // over this app's 2 MB limit, which is checked first
      assertThat(refused.status()).as(refused.toString()).isEqualTo(413);
      assertThat(new JsonObject(refused.text()).getJsonObject("error").getString("code")).isEqualTo("body_too_large");
      assertThat(refused.header("Connection")).isEqualTo("close");
      assertThat(refused.header("Tus-Resumable")).isEqualTo("1.0.0");
    }
    assertThat(head(editor, path).getHeader("Upload-Offset")).isEqualTo("0");
  }

  @Test
  void someoneElsesUploadAndAnUnknownFolderAre404() {
    String path = created(1000, "mine.mp4");
    assertThat(head(otherEditor, path).statusCode()).isEqualTo(404);
    assertThat(head(admin, path).statusCode()).isEqualTo(404);
    assertThat(patch(otherEditor, path, 0, bytes(10, 9)).statusCode()).isEqualTo(404);
    assertThat(tus(app.client().delete(path), otherEditor).send().await().statusCode()).isEqualTo(404);
    assertThat(head(editor, path).getHeader("Upload-Offset")).isEqualTo("0");
    assertThat(head(editor, "/api/v1/uploads/" + UUID.randomUUID()).statusCode()).isEqualTo(404);
    assertThat(head(editor, "/api/v1/uploads/not-an-id").statusCode()).isEqualTo(404);

    HttpResponse<Buffer> unknown = create(editor, 10, "lost.mp4", UUID.randomUUID().toString());
    assertThat(unknown.statusCode()).isEqualTo(404);
    String trashed = Folders.create(app.client(), editor, "Old");
    app.db().execute("UPDATE folders SET trashed_at = now() WHERE id = '" + trashed + "'");
    assertThat(create(editor, 10, "lost.mp4", trashed).statusCode()).isEqualTo(404);
    assertThat(app.db().number("SELECT count(*) FROM tus_uploads WHERE file_name = 'lost.mp4'")).isZero();
  }

  @Test
  void signInEditorLevelAndTheProtocolVersionAreRequired() {
    HttpResponse<Buffer> anonymous = create(null, 10, "anon.mp4", folder);
    assertThat(anonymous.statusCode()).isEqualTo(401);
    assertThat(code(anonymous)).isEqualTo("unauthenticated");
    String path = created(10, "auth.mp4");
    assertThat(head(null, path).statusCode()).isEqualTo(401);
    assertThat(patch(null, path, 0, bytes(10, 10)).statusCode()).isEqualTo(401);
    HttpResponse<Buffer> user = create(viewer, 10, "user.mp4", folder);
    assertThat(user.statusCode()).isEqualTo(403);

    HttpResponse<Buffer> noVersion = app.client().post("/api/v1/uploads").bearerTokenAuthentication(editor)
        .putHeader("Upload-Length", "10").putHeader("Upload-Metadata", meta("v.mp4", folder)).send().await();
    assertThat(noVersion.statusCode()).isEqualTo(412);
    assertThat(noVersion.getHeader("Tus-Version")).isEqualTo("1.0.0");
    HttpResponse<Buffer> wrongType = tus(app.client().patch(path), editor).putHeader("Upload-Offset", "0")
        .putHeader("Content-Type", "application/octet-stream").sendBuffer(Buffer.buffer(bytes(10, 10))).await();
    assertThat(wrongType.statusCode()).isEqualTo(415);
    HttpResponse<Buffer> noOffset = tus(app.client().patch(path), editor)
        .putHeader("Content-Type", "application/offset+octet-stream").sendBuffer(Buffer.buffer(bytes(10, 10)))
        .await();
    assertThat(noOffset.statusCode()).isEqualTo(400);
    HttpResponse<Buffer> badMeta = tus(app.client().post("/api/v1/uploads"), editor).putHeader("Upload-Length", "10")
        .putHeader("Upload-Metadata", "filename " + b64("a/b") + ",folderId " + b64(folder)).send().await();
    assertThat(badMeta.statusCode()).isEqualTo(422);
    assertThat(badMeta.bodyAsJsonObject().getJsonObject("error").getJsonObject("fields").getString("filename"))
        .isNotBlank();
  }

  @Test
  void aCookieCallerMustComeFromThisSite() {
    String cookie = "shotstash_session=" + editor;
    String site = "http://127.0.0.1:" + app.port();
    HttpResponse<Buffer> noOrigin = app.client().post("/api/v1/uploads").putHeader("Cookie", cookie)
        .putHeader("Tus-Resumable", "1.0.0").putHeader("Upload-Length", "10")
        .putHeader("Upload-Metadata", meta("csrf.mp4", folder)).send().await();
    assertThat(noOrigin.statusCode()).isEqualTo(403);
    HttpResponse<Buffer> elsewhere = app.client().post("/api/v1/uploads").putHeader("Cookie", cookie)
        .putHeader("Origin", "https://evil.example").putHeader("Tus-Resumable", "1.0.0")
        .putHeader("Upload-Length", "10").putHeader("Upload-Metadata", meta("csrf.mp4", folder)).send().await();
    assertThat(elsewhere.statusCode()).isEqualTo(403);
    assertThat(app.db().number("SELECT count(*) FROM tus_uploads WHERE file_name = 'csrf.mp4'")).isZero();

    HttpResponse<Buffer> same = app.client().post("/api/v1/uploads").putHeader("Cookie", cookie)
        .putHeader("Origin", site).putHeader("Tus-Resumable", "1.0.0").putHeader("Upload-Length", "10")
        .putHeader("Upload-Metadata", meta("csrf.mp4", folder)).send().await();
    assertThat(same.statusCode()).as(same.bodyAsString()).isEqualTo(201);
    String path = same.getHeader("Location");
    HttpResponse<Buffer> patchNoOrigin = app.client().patch(path).putHeader("Cookie", cookie)
        .putHeader("Tus-Resumable", "1.0.0").putHeader("Content-Type", "application/offset+octet-stream")
        .putHeader("Upload-Offset", "0").sendBuffer(Buffer.buffer(bytes(10, 11))).await();
    assertThat(patchNoOrigin.statusCode()).isEqualTo(403);
    HttpResponse<Buffer> deleteNoOrigin = app.client().delete(path).putHeader("Cookie", cookie)
        .putHeader("Tus-Resumable", "1.0.0").send().await();
    assertThat(deleteNoOrigin.statusCode()).isEqualTo(403);
    // HEAD changes nothing: a cookie is enough
    HttpResponse<Buffer> headOk = app.client().head(path).putHeader("Cookie", cookie)
        .putHeader("Tus-Resumable", "1.0.0").send().await();
    assertThat(headOk.statusCode()).isEqualTo(200);
    HttpResponse<Buffer> patchSame = app.client().patch(path).putHeader("Cookie", cookie).putHeader("Origin", site)
        .putHeader("Tus-Resumable", "1.0.0").putHeader("Content-Type", "application/offset+octet-stream")
        .putHeader("Upload-Offset", "0").sendBuffer(Buffer.buffer(bytes(10, 11))).await();
    assertThat(patchSame.statusCode()).as(patchSame.bodyAsString()).isEqualTo(204);
    assertThat(patchSame.getHeader("Shotstash-File-Id")).isNotNull();
  }

  /** The bytes of a whole upload as a crashed node left them: part and offset durable, no file yet. */
  static void leftComplete(String path, byte[] all) throws IOException {
    Files.write(uploads().resolve(id(path) + ".part"), all);
    Files.writeString(uploads().resolve(id(path) + ".offset"), all.length + "\n");
  }

  @Test
  void anUploadWhoseFinishACrashCutOffIsFinishedByTheNextHead() throws IOException {
    // the node stopped after the last offset was durable, before the part was moved into the library
    byte[] all = bytes(2_000, 12);
    String path = created(all.length, "crashed-before-move.mp4");
    leftComplete(path, all);
    HttpResponse<Buffer> head = head(editor, path);
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.getHeader("Upload-Offset")).isEqualTo("2000");
    String fileId = head.getHeader("Shotstash-File-Id");
    assertThat(app.client().get("/media/o/" + fileId).bearerTokenAuthentication(editor).send().await().body()
        .getBytes()).isEqualTo(all);

    // ... and after the part was moved, before the file row was made: made once, from the moved bytes
    byte[] other = bytes(3_000, 13);
    String moved = created(other.length, "crashed-after-move.mp4");
    String resultId = app.db().text("SELECT result_id FROM tus_uploads WHERE id = '" + id(moved) + "'");
    Files.write(app.dataDir().resolve("media").resolve("originals").resolve(resultId), other);
    Files.writeString(uploads().resolve(id(moved) + ".offset"), other.length + "\n");
    HttpResponse<Buffer> finish = patch(editor, moved, other.length, new byte[0]);
    assertThat(finish.statusCode()).as(finish.bodyAsString()).isEqualTo(204);
    assertThat(finish.getHeader("Shotstash-File-Id")).isEqualTo(resultId);
    assertThat(head(editor, moved).getHeader("Shotstash-File-Id")).isEqualTo(resultId);
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name = 'crashed-after-move.mp4'"))
        .isEqualTo(1);
    assertThat(app.db().number("SELECT size FROM media_files WHERE id = '" + resultId + "'")).isEqualTo(3_000);
  }

  @Test
  void bytesPastTheDurableOffsetAreCutOffByTheNextPatch() throws IOException {
    // a PATCH whose bytes were written but whose offset never became durable (a crash before the offset file)
    byte[] all = bytes(1_000, 14);
    String path = created(all.length, "torn.mp4");
    assertThat(patch(editor, path, 0, java.util.Arrays.copyOfRange(all, 0, 400)).statusCode()).isEqualTo(204);
    Files.write(uploads().resolve(id(path) + ".part"), bytes(300, 15), java.nio.file.StandardOpenOption.APPEND);
    assertThat(head(editor, path).getHeader("Upload-Offset")).isEqualTo("400");
    HttpResponse<Buffer> rest = patch(editor, path, 400, java.util.Arrays.copyOfRange(all, 400, 1_000));
    assertThat(rest.statusCode()).isEqualTo(204);
    assertThat(app.client().get("/media/o/" + rest.getHeader("Shotstash-File-Id")).bearerTokenAuthentication(editor)
        .send().await().body().getBytes()).isEqualTo(all);
  }

  @Test
  void anEmptyFileIsALibraryFileOnceCreated() {
    HttpResponse<Buffer> r = create(editor, 0, "empty.txt", folder);
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    assertThat(r.getHeader("Upload-Offset")).isEqualTo("0");
    String fileId = r.getHeader("Shotstash-File-Id");
    assertThat(fileId).isNotNull();
    assertThat(app.db().number("SELECT size FROM media_files WHERE id = '" + fileId + "'")).isZero();
    assertThat(head(editor, r.getHeader("Location")).getHeader("Shotstash-File-Id")).isEqualTo(fileId);
    assertThat(app.client().get("/media/o/" + fileId).bearerTokenAuthentication(editor).send().await().statusCode())
        .isEqualTo(200);
  }

  @Test
  void clientsThatCannotSendPatchOrDeleteMayOverrideAPost() {
    String path = created(10, "override.mp4");
    HttpResponse<Buffer> patched = tus(app.client().post(path), editor).putHeader("X-HTTP-Method-Override", "PATCH")
        .putHeader("Content-Type", "application/offset+octet-stream").putHeader("Upload-Offset", "0")
        .sendBuffer(Buffer.buffer(bytes(4, 16))).await();
    assertThat(patched.statusCode()).isEqualTo(204);
    assertThat(patched.getHeader("Upload-Offset")).isEqualTo("4");
    HttpResponse<Buffer> neither = tus(app.client().post(path), editor).putHeader("X-HTTP-Method-Override", "PUT")
        .send().await();
    assertThat(neither.statusCode()).isEqualTo(405);
    HttpResponse<Buffer> ended = tus(app.client().post(path), editor).putHeader("X-HTTP-Method-Override", "DELETE")
        .send().await();
    assertThat(ended.statusCode()).isEqualTo(204);
    assertThat(head(editor, path).statusCode()).isEqualTo(404);
  }
}
