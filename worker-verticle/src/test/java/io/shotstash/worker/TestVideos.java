package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Sample media made at test time with ffmpeg's own sources ({@code testsrc}, {@code sine}), and ffprobe to check outputs. */
final class TestVideos {
  private TestVideos() {}

  /**
   * An MP4 of {@code seconds} of {@code testsrc} at {@code width x height}, with a {@code sine} AAC
   * track when {@code audio}. Odd sizes are stored as yuv444p (yuv420p needs even sizes), which the
   * worker must turn into yuv420p.
   */
  static Path video(Path dir, String name, int width, int height, boolean audio, int seconds) {
    Path out = dir.resolve(name);
    boolean odd = width % 2 == 1 || height % 2 == 1;
    List<String> args = new ArrayList<>(List.of("ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i",
        "testsrc=size=" + width + "x" + height + ":rate=25:duration=" + seconds));
    if (audio) {
      args.addAll(List.of("-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=" + seconds));
    }
    args.addAll(List.of("-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", odd ? "yuv444p" : "yuv420p"));
    if (audio) {
      args.addAll(List.of("-c:a", "aac", "-b:a", "64k"));
    }
    args.addAll(List.of("-t", Integer.toString(seconds), out.toString()));
    run(args);
    return out;
  }

  /** An M4A with only a sine tone: no video stream. */
  static Path audioOnly(Path dir, String name) {
    Path out = dir.resolve(name);
    run(List.of("ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", "sine=frequency=330:duration=1",
        "-c:a", "aac", out.toString()));
    return out;
  }

  /** ffprobe's streams of a file: {@code {streams: [...], format: {...}}}. */
  static JsonObject probe(Path file) {
    return new JsonObject(
        run(List.of("ffprobe", "-v", "error", "-print_format", "json", "-show_streams", "-show_format",
            file.toString())));
  }

  static JsonObject stream(JsonObject probe, String type) {
    JsonArray streams = probe.getJsonArray("streams");
    for (int i = 0; i < streams.size(); i++) {
      if (type.equals(streams.getJsonObject(i).getString("codec_type"))) {
        return streams.getJsonObject(i);
      }
    }
    return null;
  }

  /** Asserts a worker's proxy: H.264 in yuv420p at {@code width x height}, with AAC audio. */
  static void assertProxy(JsonObject probe, int width, int height) {
    JsonObject video = stream(probe, "video");
    assertThat(video.getString("codec_name")).isEqualTo("h264");
    assertThat(video.getString("pix_fmt")).isEqualTo("yuv420p");
    assertThat(video.getInteger("width")).isEqualTo(width);
    assertThat(video.getInteger("height")).isEqualTo(height);
    assertThat(stream(probe, "audio").getString("codec_name")).isEqualTo("aac");
  }

  private static String run(List<String> args) {
    try {
      Process p = new ProcessBuilder(args).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int exit = p.waitFor();
      if (exit != 0) {
        throw new IllegalStateException(String.join(" ", args) + " exited with " + exit + ": " + out);
      }
      return out;
    } catch (IOException e) {
      // the program is missing: one line naming the package, never a skip (TESTING.md)
      throw new IllegalStateException(args.get(0) + " is not installed or not on the PATH; the worker tests need it: "
          + "apt-get install ffmpeg (.ci/run installs it)");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
