package io.shotstash.http.uploads;

import static org.assertj.core.api.Assertions.assertThat;

import io.shotstash.testing.CuttableProxy;
import io.shotstash.testing.Folders;
import io.shotstash.testing.NoiseFiles;
import io.shotstash.testing.WithSignedInApp;
import io.tus.java.client.ProtocolException;
import io.tus.java.client.TusClient;
import io.tus.java.client.TusURLMemoryStore;
import io.tus.java.client.TusUpload;
import io.tus.java.client.TusUploader;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Resumable uploads with a real tus client (tus-java-client) over loopback, through a proxy the
 * test cuts: a 200 MB upload cut three times in the middle of its PATCHes, and one cut by an app
 * restart, each resumed from the offset the server kept and arriving byte for byte (SHA-256), as
 * exactly one library file.
 */
@Timeout(600)
class TusResumeTest extends WithSignedInApp {
  static final long MB = 1L << 20;
  static String editor;
  static String folder;
  static CuttableProxy proxy;

  @BeforeAll
  static void start() throws IOException {
    startSignedIn(Map.of("SHOTSTASH_MAX_UPLOAD_MB", "300"));
    editor = app.createAndLogin(admin, "eve", "editor", "editor password 123");
    folder = Folders.create(app.client(), editor, "Rushes");
    proxy = new CuttableProxy(app.port());
  }

  @AfterAll
  static void stop() {
    proxy.close();
  }

  /** {@code size} bytes of seeded noise in a temporary file. */
  static Path noise(long size, long seed) throws IOException {
    return NoiseFiles.write(Files.createTempFile("tus-", ".bin"), size, seed);
  }

  static TusUpload tusUpload(Path file, String name) throws IOException {
    TusUpload upload = new TusUpload(file.toFile());
    upload.setMetadata(Map.of("filename", name, "filetype", "application/octet-stream", "folderId", folder));
    return upload;
  }

  static TusClient client() throws IOException {
    TusClient client = new TusClient();
    client.setUploadCreationURL(new URL("http://127.0.0.1:" + proxy.port() + "/api/v1/uploads"));
    client.enableResuming(new TusURLMemoryStore());
    client.setHeaders(Map.of("Authorization", "Bearer " + editor));
    return client;
  }

  /**
   * Uploads {@code file} with {@code client}, chunk by chunk; before the chunk that would pass
   * {@code at[i]} bytes, runs {@code events[i]} (a cut, a restart). Every failure (the cut
   * connection, a 409 while the server still finishes the cut PATCH) is answered as a tus client
   * does: ask HEAD for the offset and go on from there. Answers the offsets it resumed from.
   */
  static List<Long> uploadResuming(TusClient client, Path file, String name, long[] at, Runnable[] events)
      throws Exception {
    List<Long> resumedFrom = new ArrayList<>();
    TusUploader uploader = configure(client.resumeOrCreateUpload(tusUpload(file, name)));
    int next = 0;
    int failures = 0;
    while (true) {
      try {
        if (next < at.length && uploader.getOffset() >= at[next]) {
          events[next++].run();
        }
        if (uploader.uploadChunk() == -1) {
          uploader.finish();
          return resumedFrom;
        }
      } catch (IOException | ProtocolException e) {
        assertThat(++failures).as("resumes (last failure: %s)", e).isLessThan(200);
        Thread.sleep(50); // a client's back-off; nothing is measured
        try {
          uploader = configure(client.resumeUpload(tusUpload(file, name)));
          resumedFrom.add(uploader.getOffset());
        } catch (IOException | ProtocolException again) {
          // the server may be starting up again: the next round asks again
        }
      }
    }
  }

  /**
   * 1 MB chunks, all of the rest in one PATCH: every event after a request's first chunk then falls in
   * the middle of a PATCH (with smaller requests a cut can land between two, where it cuts nothing).
   */
  static TusUploader configure(TusUploader uploader) {
    uploader.setChunkSize((int) MB);
    uploader.setRequestPayloadSize(1 << 30);
    return uploader;
  }

  /** The library file a finished upload became, from {@code Shotstash-File-Id} on its HEAD. */
  static String fileIdOf(URL uploadUrl) {
    HttpResponse<Buffer> head = app.client().head(uploadUrl.getPath()).bearerTokenAuthentication(editor)
        .putHeader("Tus-Resumable", "1.0.0").send().await();
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(head.getHeader("Upload-Offset")).isEqualTo(head.getHeader("Upload-Length"));
    return head.getHeader("Shotstash-File-Id");
  }

  static void assertStoredOnce(String fileId, Path original, String name) throws Exception {
    assertThat(fileId).isNotNull();
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE id = '" + fileId + "'")).isEqualTo(1);
    assertThat(app.db().number("SELECT count(*) FROM media_files WHERE name = '" + name + "'")).isEqualTo(1);
    assertThat(app.db().number("SELECT size FROM media_files WHERE id = '" + fileId + "'"))
        .isEqualTo(Files.size(original));
    Path stored = app.dataDir().resolve("media").resolve("originals").resolve(fileId);
    assertThat(NoiseFiles.sha256(stored)).isEqualTo(NoiseFiles.sha256(original));
    try (Stream<Path> left = Files.list(app.dataDir().resolve("media").resolve("uploads"))) {
      assertThat(left.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".part")).toList())
          .as("no partial bytes left").isEmpty();
    }
  }

  @Test
  void a200MbUploadCutThreeTimesResumesToIdenticalBytes() throws Exception {
    Path file = noise(200 * MB, 20);
    try {
      TusClient client = client();
      Runnable cut = proxy::cut;
      List<Long> resumed = uploadResuming(client, file, "big.bin", new long[]{50 * MB, 100 * MB, 150 * MB},
          new Runnable[]{cut, cut, cut});
      assertThat(resumed).as("resumed after each cut").hasSizeGreaterThanOrEqualTo(3);
      assertThat(resumed).as("each resume went on from bytes the server kept").allMatch(o -> o > 0);
      URL url = new URL(client.resumeOrCreateUpload(tusUpload(file, "big.bin")).getUploadURL().toString());
      assertStoredOnce(fileIdOf(url), file, "big.bin");
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void anUploadCutByAnAppRestartResumesAfterIt() throws Exception {
    Path file = noise(40 * MB, 40);
    try {
      TusClient client = client();
      Runnable restart = () -> app = app.restart(); // mid-PATCH: 12 MB into a 40 MB request
      List<Long> resumed = uploadResuming(client, file, "restarted.bin", new long[]{12 * MB},
          new Runnable[]{restart});
      assertThat(resumed).isNotEmpty();
      URL url = new URL(client.resumeOrCreateUpload(tusUpload(file, "restarted.bin")).getUploadURL().toString());
      assertStoredOnce(fileIdOf(url), file, "restarted.bin");
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
