package io.shotstash.worker.ffmpeg;

/**
 * The size of a 720p proxy: height min(720, input), never upscaled (neither side grows), the width
 * keeping the aspect ratio, both even (yuv420p and libx264 need that) and at least 2. Works on the
 * displayed size, that is after a rotation tag is applied (ffmpeg rotates before it scales).
 */
public record ProxyPlan(int width, int height) {
  public static final int MAX_HEIGHT = 720;

  public static ProxyPlan forInput(int inputWidth, int inputHeight) {
    if (inputWidth <= 0 || inputHeight <= 0) {
      throw new IllegalArgumentException("the video has no size (" + inputWidth + "x" + inputHeight + ")");
    }
    int height = Math.max(2, inputHeight > MAX_HEIGHT ? MAX_HEIGHT : evenDown(inputHeight));
    long scaled = 2 * Math.round((double) inputWidth * height / inputHeight / 2d);
    int width = (int) Math.max(2, Math.min(scaled, evenDown(inputWidth)));
    return new ProxyPlan(width, height);
  }

  /** The displayed size of a stream stored as {@code width x height} with a rotation in degrees. */
  public static ProxyPlan forStream(int width, int height, int rotationDegrees) {
    int quarter = Math.floorMod(Math.round(rotationDegrees / 90f), 4);
    return quarter % 2 == 1 ? forInput(height, width) : forInput(width, height);
  }

  private static int evenDown(int n) {
    return n - (n % 2);
  }

  /** The ffmpeg filter that makes this size in yuv420p. */
  public String filter() {
    return "scale=" + width + ":" + height + ",format=yuv420p";
  }
}
