package io.shotstash.worker.ffmpeg;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command lines the reference worker runs. Pure: builds argument lists, runs nothing.
 *
 * <p>The proxy: the first video stream (not a cover picture) and the first audio stream if any;
 * scaled by {@link ProxyPlan}; H.264 (libx264, preset veryfast, crf 23, yuv420p); AAC 128 kb/s;
 * the index at the front ({@code +faststart}) so players can start before the end arrives;
 * machine-readable progress on standard output ({@code -progress pipe:1}).
 */
public final class FfmpegArgs {
  private FfmpegArgs() {}

  public static List<String> probe(String ffprobe, Path input) {
    return List.of(ffprobe, "-v", "error", "-print_format", "json", "-show_format", "-show_streams", input.toString());
  }

  public static List<String> proxy(String ffmpeg, Path input, Path output, Probe probe) {
    Probe.Video video = probe.video();
    if (video == null) {
      throw new IllegalArgumentException("no video stream to encode");
    }
    ProxyPlan plan = ProxyPlan.forStream(video.width(), video.height(), video.rotation());
    List<String> args = new ArrayList<>(List.of(ffmpeg, "-hide_banner", "-nostdin", "-nostats", "-y",
        "-loglevel", "error", "-i", input.toString(), "-map", "0:" + video.index()));
    if (probe.audioIndex() != null) {
      args.addAll(List.of("-map", "0:" + probe.audioIndex()));
    } else {
      args.add("-an");
    }
    args.addAll(List.of("-sn", "-dn", "-vf", plan.filter(),
        "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p"));
    if (probe.audioIndex() != null) {
      args.addAll(List.of("-c:a", "aac", "-b:a", "128k"));
    }
    args.addAll(List.of("-movflags", "+faststart", "-progress", "pipe:1", "-f", "mp4", output.toString()));
    return List.copyOf(args);
  }

  /**
   * The position in microseconds from one line of {@code -progress} output ({@code out_time_us=…},
   * or the older {@code out_time_ms=…}, which ffmpeg also writes in microseconds); -1 for any other
   * line or for {@code N/A}.
   */
  public static long outTimeMicros(String line) {
    if (line == null) {
      return -1;
    }
    String s = line.strip();
    String value;
    if (s.startsWith("out_time_us=")) {
      value = s.substring("out_time_us=".length());
    } else if (s.startsWith("out_time_ms=")) {
      value = s.substring("out_time_ms=".length());
    } else {
      return -1;
    }
    try {
      long v = Long.parseLong(value);
      return v < 0 ? -1 : v;
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
