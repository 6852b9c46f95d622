package io.shotstash.media;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Folders;
import io.shotstash.testing.RawUpload;
import io.shotstash.testing.WithAppOnSmallDisk;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Library uploads and avatars on a real full disk: the data folder is a 48 MiB tmpfs. An upload the
 * disk cannot hold answers 507 {@code insufficient_storage} in the API's envelope, keeps no file row,
 * no temporary or partial file, and gives its space back; once space is back, uploads work again.
 */
class FullDiskUploadTest extends WithAppOnSmallDisk {
  static final long MIB = 1024L * 1024L;

  /** The folder every upload goes to (an upload needs one). */
  static String folder;

  @BeforeAll
  static void start() {
    startOnSmallDisk(Map.of());
    folder = Folders.create(app.client(), admin, "inputs");
  }

  static List<Path> list(String folder) throws IOException {
    return disk.media(folder);
  }

  static long fileRows() {
    return app.db().number("SELECT count(*) FROM media_files");
  }

  static void assertInsufficientStorage(int status, String retryAfter, JsonObject body) {
    assertThat(status).as("%s", body).isEqualTo(507);
    assertThat(retryAfter).isEqualTo("60");
    assertThat(body.getBoolean("success")).isFalse();
    assertThat(body.getJsonObject("error").getString("code")).isEqualTo("insufficient_storage");
    assertThat(body.getJsonObject("error").getString("traceId")).isNotBlank();
    assertThat(body.getJsonObject("metadata").getString("timestamp")).isNotBlank();
  }

  static HttpResponse<Buffer> smallUpload(String name, Buffer bytes) {
    return app.client().post("/api/v1/files").bearerTokenAuthentication(admin)
        .addQueryParam("folderId", folder).putHeader("Content-Type", "text/plain").putHeader("X-File-Name", name)
        .sendBuffer(bytes).await();
  }

  @Test
  void anUploadBiggerThanTheFreeSpaceIs507AndLeavesNothing() throws Exception {
    List<Path> originals = list("originals");
    long rows = fileRows();
    long free = disk.usableBytes();

    // streamed (not a small declared body): 16 MiB more than the disk holds
    RawUpload.Answer a = RawUpload.send(app.port(), "POST", "/api/v1/files?folderId=" + folder, Map.of(
        "Authorization", "Bearer " + admin, "Content-Type", "video/mp4", "X-File-Name", "too-big.mp4"),
        free + 16 * MIB);

    assertInsufficientStorage(a.status(), a.header("Retry-After"), new JsonObject(a.body()));
    assertThat(fileRows()).isEqualTo(rows);
    assertThat(list("originals")).isEqualTo(originals);
    assertThat(list("tmp")).isEmpty();
    // the partial temporary file was deleted before the answer: its space is free again
    assertThat(disk.usableBytes()).isGreaterThanOrEqualTo(free - MIB);

    // and the disk takes what fits
    byte[] bytes = new byte[4 * (int) MIB];
    bytes[bytes.length - 1] = 42;
    HttpResponse<Buffer> ok = smallUpload("fits.bin", Buffer.buffer(bytes));
    assertThat(ok.statusCode()).as(ok.bodyAsString()).isEqualTo(201);
    String id = ok.bodyAsJsonObject().getJsonObject("data").getString("id");
    assertThat(disk.path().resolve("media").resolve(Storage.originalKey(id))).hasBinaryContent(bytes);
    assertThat(fileRows()).isEqualTo(rows + 1);
  }

  @Test
  void onAFullDiskEvenASmallUploadIs507AndWorksOnceSpaceIsBack() throws Exception {
    List<Path> originals = list("originals");
    long rows = fileRows();
    disk.fill();

    // a small declared body takes the one-call write path: the same answer
    HttpResponse<Buffer> small = smallUpload("note.txt", Buffer.buffer("hello"));
    assertInsufficientStorage(small.statusCode(), small.getHeader("Retry-After"), small.bodyAsJsonObject());
    // a body over 64 KiB streams
    HttpResponse<Buffer> streamed = smallUpload("notes.txt", Buffer.buffer(new byte[256 * 1024]));
    assertInsufficientStorage(streamed.statusCode(), streamed.getHeader("Retry-After"), streamed.bodyAsJsonObject());
    assertThat(fileRows()).isEqualTo(rows);
    assertThat(list("originals")).isEqualTo(originals);
    assertThat(list("tmp")).isEmpty();

    disk.free();
    HttpResponse<Buffer> ok = smallUpload("note.txt", Buffer.buffer("hello"));
    assertThat(ok.statusCode()).as(ok.bodyAsString()).isEqualTo(201);
    assertThat(fileRows()).isEqualTo(rows + 1);
  }

  @Test
  void anAvatarOnAFullDiskIs507AndChangesNothing() throws Exception {
    byte[] png = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
    List<Path> avatars = list("avatars");
    String before = app.publicState().current().commit();
    disk.fill();

    HttpResponse<Buffer> refused = app.client().put("/api/people/ada/avatar").bearerTokenAuthentication(admin)
        .putHeader("Content-Type", "image/png").sendBuffer(Buffer.buffer(png)).await();
    assertInsufficientStorage(refused.statusCode(), refused.getHeader("Retry-After"), refused.bodyAsJsonObject());
    assertThat(list("avatars")).isEqualTo(avatars);
    assertThat(list("tmp")).isEmpty();
    assertThat(app.publicState().current().commit()).isEqualTo(before);

    disk.free();
    HttpResponse<Buffer> ok = app.client().put("/api/people/ada/avatar").bearerTokenAuthentication(admin)
        .putHeader("Content-Type", "image/png").sendBuffer(Buffer.buffer(png)).await();
    assertThat(ok.statusCode()).as(ok.bodyAsString()).isEqualTo(200);
    assertThat(ok.bodyAsJsonObject().getJsonObject("data").getString("avatarUrl")).endsWith(".png");
  }
}
