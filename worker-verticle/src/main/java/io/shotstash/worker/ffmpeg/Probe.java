package io.shotstash.worker.ffmpeg;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * What ffprobe says about an input: its duration (0 when unknown), the first video stream that is
 * not a cover picture, and the index of the first audio stream.
 */
public record Probe(double durationSeconds, Video video, Integer audioIndex) {

  /** A video stream: its index in the input, its stored size and its rotation in degrees. */
  public record Video(int index, int width, int height, int rotation) {}

  /** Reads {@code ffprobe -print_format json -show_format -show_streams}; IllegalArgumentException when it is not that. */
  public static Probe parse(String json) {
    JsonObject root;
    try {
      root = new JsonObject(json);
    } catch (DecodeException | ClassCastException e) {
      throw new IllegalArgumentException("ffprobe did not answer JSON");
    }
    JsonArray streams = root.getJsonArray("streams", new JsonArray());
    Video video = null;
    Integer audio = null;
    double streamDuration = 0;
    for (Object o : streams) {
      if (!(o instanceof JsonObject s)) {
        continue;
      }
      String type = s.getString("codec_type");
      int index = s.getInteger("index", -1);
      if ("video".equals(type) && video == null && !coverPicture(s) && index >= 0) {
        int w = s.getInteger("width", 0);
        int h = s.getInteger("height", 0);
        if (w > 0 && h > 0) {
          video = new Video(index, w, h, rotation(s));
          streamDuration = number(s.getValue("duration"));
        }
      } else if ("audio".equals(type) && audio == null && index >= 0) {
        audio = index;
      }
    }
    JsonObject format = root.getJsonObject("format", new JsonObject());
    double duration = number(format.getValue("duration"));
    return new Probe(duration > 0 ? duration : streamDuration, video, audio);
  }

  private static boolean coverPicture(JsonObject stream) {
    JsonObject d = stream.getJsonObject("disposition");
    return d != null && d.getInteger("attached_pic", 0) == 1;
  }

  /** The rotation of a stream: the display matrix side data (newer ffmpeg) or the {@code rotate} tag (older). */
  static int rotation(JsonObject stream) {
    JsonArray side = stream.getJsonArray("side_data_list");
    if (side != null) {
      for (Object o : side) {
        if (o instanceof JsonObject sd && sd.getValue("rotation") != null) {
          return (int) Math.round(number(sd.getValue("rotation")));
        }
      }
    }
    JsonObject tags = stream.getJsonObject("tags");
    if (tags != null && tags.getValue("rotate") != null) {
      return (int) Math.round(number(tags.getValue("rotate")));
    }
    return 0;
  }

  private static double number(Object value) {
    if (value instanceof Number n) {
      return n.doubleValue();
    }
    if (value instanceof String s) {
      try {
        double d = Double.parseDouble(s.strip());
        return Double.isFinite(d) ? d : 0;
      } catch (NumberFormatException e) {
        return 0;
      }
    }
    return 0;
  }
}
