package io.shotstash.worker.ffmpeg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class FfmpegArgsTest {
  private static final Path IN = Path.of("/s/input");
  private static final Path OUT = Path.of("/s/output.mp4");

  @Test
  void theProxyWithAudio() {
    Probe probe = new Probe(2.0, new Probe.Video(0, 1920, 1080, 0), 1);
    assertThat(FfmpegArgs.proxy("ffmpeg", IN, OUT, probe)).containsExactly("ffmpeg", "-hide_banner", "-nostdin",
        "-nostats",
        "-y", "-loglevel", "error", "-i", "/s/input", "-map", "0:0", "-map", "0:1", "-sn", "-dn",
        "-vf", "scale=1280:720,format=yuv420p", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt",
        "yuv420p",
        "-c:a", "aac", "-b:a", "128k", "-movflags", "+faststart", "-progress", "pipe:1", "-f", "mp4", "/s/output.mp4");
  }

  @Test
  void theProxyWithoutAudio() {
    Probe probe = new Probe(2.0, new Probe.Video(2, 641, 361, 0), null);
    List<String> args = FfmpegArgs.proxy("ffmpeg", IN, OUT, probe);
    assertThat(args).containsSubsequence("-map", "0:2", "-an").contains("scale=640:360,format=yuv420p")
        .doesNotContain("aac", "-c:a");
  }

  @Test
  void noVideoNoProxy() {
    assertThatThrownBy(() -> FfmpegArgs.proxy("ffmpeg", IN, OUT, new Probe(2.0, null, 0)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void probeAsksForJson() {
    assertThat(FfmpegArgs.probe("ffprobe", IN)).containsExactly("ffprobe", "-v", "error", "-print_format", "json",
        "-show_format", "-show_streams", "/s/input");
  }

  @Test
  void readsTheProgressPosition() {
    assertThat(FfmpegArgs.outTimeMicros("out_time_us=1234567")).isEqualTo(1_234_567);
    assertThat(FfmpegArgs.outTimeMicros("out_time_ms=1234567")).isEqualTo(1_234_567);
    assertThat(FfmpegArgs.outTimeMicros("out_time_us=N/A")).isEqualTo(-1);
    assertThat(FfmpegArgs.outTimeMicros("out_time=00:00:01.234567")).isEqualTo(-1);
    assertThat(FfmpegArgs.outTimeMicros("progress=end")).isEqualTo(-1);
    assertThat(FfmpegArgs.outTimeMicros("out_time_us=-5")).isEqualTo(-1);
    assertThat(FfmpegArgs.outTimeMicros(null)).isEqualTo(-1);
  }
}
