package io.shotstash.media;

import io.vertx.core.Future;
import io.vertx.core.streams.ReadStream;
import io.vertx.core.buffer.Buffer;
import java.nio.file.Path;

/**
 * Blob storage for originals and processed versions. Keys are built only from ids we generate and
 * validated extensions ({@link #originalKey}, {@link #versionKey}), so no client text ever names a
 * file. Writes go to a temporary name and are renamed into place, so a key is either absent or
 * complete, and a write completes only once its bytes and its name are durable (callers answer the
 * client and commit the row after that).
 */
public interface Storage {

  static String originalKey(String fileId) {
    return "originals/" + fileId;
  }

  /** An avatar's key from its file name ({@code <uuid>.<ext>}, the person record's avatarKey). */
  static String avatarKey(String fileName) {
    return "avatars/" + fileName;
  }

  static String versionKey(String versionId, String ext) {
    return "versions/" + versionId + "." + ext;
  }

  /** What a streamed write produced. */
  record Written(String key, long size) {}

  /** Why a streamed write stopped. */
  final class TooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TooLargeException() {
      super("the body is larger than the limit", null, false, false);
    }
  }

  /**
   * Streams {@code body} into {@code key} with back-pressure, refusing past {@code maxBytes}
   * (fails with {@link TooLargeException}, nothing kept). The body must be paused by the caller;
   * this resumes it. On any failure nothing is left under the key.
   */
  Future<Written> write(String key, ReadStream<Buffer> body, long maxBytes);

  /**
   * Bodies of at most this many bytes whose length is declared up front are taken whole and written
   * in one go (no bigger than a chunk of a streamed body).
   */
  int SMALL_BODY_BYTES = 64 * 1024;

  /**
   * As {@link #write(String, ReadStream, long)}, for a body that declared its length ({@code
   * declaredBytes}; -1 when it did not). A store may take a small declared body
   * ({@link #SMALL_BODY_BYTES} at most) whole and write it in one call; every other body streams.
   * A body that turns out longer than it declared fails, and nothing is kept.
   */
  default Future<Written> write(String key, ReadStream<Buffer> body, long maxBytes, long declaredBytes) {
    return write(key, body, maxBytes);
  }

  /**
   * Moves a complete file whose bytes were already forced to disk (a finished resumable upload's
   * part, on this storage's file system) under {@code key}, durably: renamed, never copied. Safe to
   * call again after a crash between the rename and what followed it: when {@code file} is gone and
   * the key holds a file, that file is the answer.
   */
  Future<Written> adopt(Path file, String key);

  /** The file behind a key, for zero-copy serving; it may not exist. */
  Path path(String key);

  Future<Boolean> exists(String key);

  /** Deletes a key; deleting a missing key is fine. */
  Future<Void> delete(String key);
}
