package io.shotstash.media.uploads;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A creation's checks, in their order: length, metadata, folder. */
class NewUploadTest {
  static final long MAX = 1L << 20;
  static final String FOLDER = "0190f2a4-1c2d-7e3f-8a9b-0c1d2e3f4a5b";

  static String b64(String s) {
    return Base64.getEncoder().encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }

  static String meta(String name, String type, String folder) {
    StringBuilder sb = new StringBuilder();
    if (name != null) {
      sb.append("filename ").append(b64(name));
    }
    if (type != null) {
      sb.append(sb.length() > 0 ? "," : "").append("filetype ").append(b64(type));
    }
    if (folder != null) {
      sb.append(sb.length() > 0 ? "," : "").append("folderId ").append(b64(folder));
    }
    return sb.toString();
  }

  @Test
  void aValidCreationIsRead() throws Exception {
    NewUpload u = NewUpload.check("1000", meta(" clip.mp4 ", "Video/MP4; codecs=avc1", FOLDER), MAX);
    assertThat(u).isEqualTo(new NewUpload("clip.mp4", "video/mp4", FOLDER, 1000));
    NewUpload plain = NewUpload.check("0", "name " + b64("a.bin") + ",folderId " + b64(FOLDER), MAX);
    assertThat(plain.mediaType()).isEqualTo("application/octet-stream");
    assertThat(plain.name()).isEqualTo("a.bin");
  }

  static Stream<Arguments> refused() {
    String ok = meta("clip.mp4", "video/mp4", FOLDER);
    return Stream.of(
        Arguments.of(null, ok, 400, null),
        Arguments.of("-1", ok, 400, null),
        Arguments.of("ten", ok, 400, null),
        Arguments.of(Long.toString(MAX + 1), ok, 413, null),
        Arguments.of(Long.toString(MAX + 1), "not metadata at all !!", 413, null), // length first
        Arguments.of("10", "filename !!", 422, "Upload-Metadata"),
        Arguments.of("10", meta(null, "video/mp4", FOLDER), 422, "filename"),
        Arguments.of("10", meta("a/b.mp4", "video/mp4", FOLDER), 422, "filename"),
        Arguments.of("10", meta("a\u0001.mp4", "video/mp4", FOLDER), 422, "filename"),
        Arguments.of("10", meta("x".repeat(256), "video/mp4", FOLDER), 422, "filename"),
        Arguments.of("10", meta("clip.mp4", "video", FOLDER), 422, "filetype"),
        Arguments.of("10", meta("clip.mp4", "video/mp4", null), 422, "folderId"),
        Arguments.of("10", meta("clip.mp4", "video/mp4", ""), 422, "folderId"),
        Arguments.of("10", meta("clip.mp4", "video/mp4", "../etc"), 404, null));
  }

  @ParameterizedTest(name = "Upload-Length {0}, metadata {1}: {2} {3}")
  @MethodSource("refused")
  void refusals(String length, String metadata, int status, String field) {
    Throwable thrown = catchThrowable(() -> NewUpload.check(length, metadata, MAX));
    assertThat(thrown).isInstanceOf(NewUpload.Refused.class);
    NewUpload.Refused r = (NewUpload.Refused) thrown;
    assertThat(r.status()).isEqualTo(status);
    if (field != null) {
      assertThat(r.fields()).containsKey(field);
    }
  }
}
