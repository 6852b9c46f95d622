package io.shotstash.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.Folders;
import io.shotstash.testing.TestApp;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.multipart.MultipartForm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code POST /api/v1/files} takes the file's raw bytes into a folder. An upload that would store a
 * file nobody can find (no folder: the library lists files by folder) or a form instead of the file
 * (a multipart or urlencoded body) is refused with a 422 that says what to send, and leaves nothing.
 */
class LibraryUploadHttpTest {
  static TestApp app;
  static String editor;
  static String folder;

  @BeforeAll
  static void start() {
    app = TestApp.start();
    String admin = app.setupAndLogin();
    editor = app.createAndLogin(admin, "eve", "editor", "editor password 123");
    folder = Folders.create(app.client(), editor, "Rushes");
  }

  @AfterAll
  static void stop() {
    app.close();
  }

  /** Every refusal here leaves no row, no original and no temporary file. */
  @AfterEach
  void nothingWasKeptByARefusal() throws IOException {
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name LIKE 'refused%'")).isZero();
    for (String dir : new String[]{"tmp", "originals"}) {
      Path path = app.dataDir().resolve("media").resolve(dir);
      if (Files.isDirectory(path)) {
        try (Stream<Path> files = Files.list(path)) {
          assertThat(files.count()).as("files in media/%s", dir).isEqualTo(dir.equals("tmp") ? 0
              : app.db().number("SELECT count(*) FROM media_files"));
        }
      }
    }
  }

  static JsonObject refusal(HttpResponse<Buffer> r) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(422);
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getBoolean("success")).isFalse();
    assertThat(body.getJsonObject("error").getString("code")).isEqualTo("validation_failed");
    assertThat(body.getJsonObject("error").getString("traceId")).isNotBlank();
    return body.getJsonObject("error");
  }

  @Test
  void anUploadWithoutAFolderIsRefusedOnFolderId() {
    HttpResponse<Buffer> none = app.client().post("/api/v1/files").bearerTokenAuthentication(editor)
        .putHeader("Content-Type", "video/mp4").putHeader("X-File-Name", "refused.mp4")
        .sendBuffer(Buffer.buffer("bytes")).await();
    assertThat(refusal(none).getJsonObject("fields").getString("folderId"))
        .isEqualTo("required: create a folder first (GraphQL createFolder) and pass its id");
    HttpResponse<Buffer> empty = app.client().post("/api/v1/files?folderId=").bearerTokenAuthentication(editor)
        .putHeader("Content-Type", "video/mp4").putHeader("X-File-Name", "refused.mp4")
        .sendBuffer(Buffer.buffer("bytes")).await();
    assertThat(refusal(empty).getJsonObject("fields").getString("folderId")).startsWith("required");
    // a folder that does not exist, and one that is not an id at all
    for (String id : new String[]{UUID.randomUUID().toString(), "../etc"}) {
      HttpResponse<Buffer> unknown = app.client().post("/api/v1/files").addQueryParam("folderId", id)
          .bearerTokenAuthentication(editor).putHeader("Content-Type", "video/mp4")
          .putHeader("X-File-Name", "refused.mp4").sendBuffer(Buffer.buffer("bytes")).await();
      assertThat(refusal(unknown).getJsonObject("fields").getString("folderId")).isEqualTo("no such folder");
    }
  }

  @Test
  void aMultipartFormIsRefusedWithHowToSendTheRawBytes() throws IOException {
    Path clip = Files.writeString(Files.createTempFile("refused", ".mp4"), "not really a video");
    try {
      // what `curl -F file=@clip.mp4` sends
      HttpResponse<Buffer> form = app.client().post("/api/v1/files").addQueryParam("folderId", folder)
          .bearerTokenAuthentication(editor)
          .sendMultipartForm(
              MultipartForm.create().binaryFileUpload("file", "refused.mp4", clip.toString(), "video/mp4"))
          .await();
      JsonObject error = refusal(form);
      assertThat(error.getString("message")).contains("raw bytes").contains("--data-binary").contains("X-File-Name");
      assertThat(error.getJsonObject("fields").getString("Content-Type"))
          .startsWith("multipart/form-data is not accepted: ");
      // what `curl -d @clip.mp4` sends without a Content-Type of its own
      HttpResponse<Buffer> urlencoded = app.client().post("/api/v1/files").addQueryParam("folderId", folder)
          .bearerTokenAuthentication(editor).putHeader("Content-Type", "application/x-www-form-urlencoded")
          .putHeader("X-File-Name", "refused.mp4").sendBuffer(Buffer.buffer("not really a video")).await();
      assertThat(refusal(urlencoded).getString("message")).contains("raw bytes");
    } finally {
      Files.delete(clip);
    }
  }

  @Test
  void anUploadIntoAFolderIsListedInIt() {
    HttpResponse<Buffer> r = app.client().post("/api/v1/files").addQueryParam("folderId", folder)
        .bearerTokenAuthentication(editor).putHeader("Content-Type", "video/mp4").putHeader("X-File-Name", "clip.mp4")
        .sendBuffer(Buffer.buffer("not really a video")).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(201);
    JsonObject file = r.bodyAsJsonObject().getJsonObject("data");
    assertThat(file.getString("folderId")).isEqualTo(folder);
    assertThat(file.getString("name")).isEqualTo("clip.mp4");
    assertThat(file.getLong("size")).isEqualTo(18);

    JsonObject listed = app.client().post("/graphql").bearerTokenAuthentication(editor)
        .sendJsonObject(new JsonObject().put("query", "query($id: ID!) { folder(id: $id) { files { id } } }")
            .put("variables", new JsonObject().put("id", folder)))
        .await().bodyAsJsonObject();
    JsonArray files = listed.getJsonObject("data").getJsonObject("folder").getJsonArray("files");
    assertThat(files.stream().map(f -> ((JsonObject) f).getString("id")).toList()).contains(file.getString("id"));
  }
}
