package io.shotstash.publicdata;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.shotstash.publicdata.records.BlogPost;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records to and from their files: TOML with camelCase keys, no nulls written (TOML has none: an
 * absent key is null), timestamps as ISO-8601 UTC strings. Blog posts are markdown with TOML front
 * matter between {@code +++} lines. Unknown keys in a file are ignored on read.
 */
public final class TomlCodec {
  private static final String FENCE = "+++";

  /**
   * Made on first use, not with the codec: a start from an up-to-date state snapshot reads no TOML,
   * and building the mapper costs the start a fifth of a second.
   */
  private volatile TomlMapper mapper;

  private TomlMapper mapper() {
    TomlMapper m = mapper;
    if (m == null) {
      synchronized (this) {
        m = mapper;
        if (m == null) {
          m = TomlMapper.builder()
              .addModule(new JavaTimeModule())
              .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
              .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
              .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE)
              .serializationInclusion(JsonInclude.Include.NON_NULL)
              .build();
          mapper = m;
        }
      }
    }
    return m;
  }

  /** One reader per record type, made once: decoding runs on several threads at start (ObjectReader is immutable). */
  private final Map<Sheet, ObjectReader> readers = new ConcurrentHashMap<>();

  /** The file content of a record of {@code sheet}. */
  public byte[] encode(Sheet sheet, Object record) {
    try {
      if (sheet.markdown()) {
        BlogPost post = (BlogPost) record;
        ObjectNode front = mapper().valueToTree(post);
        front.remove("body");
        String toml = mapper().writeValueAsString(front);
        String body = post.body() == null ? "" : post.body();
        return (FENCE + "\n" + toml + FENCE + "\n" + body).getBytes(StandardCharsets.UTF_8);
      }
      return mapper().writeValueAsBytes(record);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot encode a " + sheet.sheetName() + " record", e);
    }
  }

  /** Reads a record of {@code sheet} from its file content. */
  public Object decode(Sheet sheet, byte[] content) {
    try {
      if (sheet.markdown()) {
        return decodeMarkdown(new String(content, StandardCharsets.UTF_8));
      }
      return readers.computeIfAbsent(sheet, s -> mapper().readerFor(s.recordType())).readValue(content);
    } catch (IOException e) {
      throw new UncheckedIOException("not a valid " + sheet.sheetName() + " record: " + e.getMessage(), e);
    }
  }

  private BlogPost decodeMarkdown(String text) throws IOException {
    String normalized = text.replace("\r\n", "\n");
    if (!normalized.startsWith(FENCE + "\n")) {
      throw new IOException("a blog post starts with a +++ line");
    }
    int end = normalized.indexOf("\n" + FENCE, FENCE.length());
    if (end < 0) {
      throw new IOException("the front matter has no closing +++ line");
    }
    String front = normalized.substring(FENCE.length() + 1, end + 1);
    int bodyStart = normalized.indexOf('\n', end + 1 + FENCE.length());
    String body = bodyStart < 0 ? "" : normalized.substring(bodyStart + 1);
    ObjectNode node = (ObjectNode) mapper().readTree(front);
    node.put("body", body);
    return mapper().treeToValue(node, BlogPost.class);
  }

  String encodeToString(Sheet sheet, Object record) {
    return new String(encode(sheet, record), StandardCharsets.UTF_8);
  }
}
