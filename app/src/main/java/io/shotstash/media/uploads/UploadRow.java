package io.shotstash.media.uploads;

import io.vertx.sqlclient.Row;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.UUID;

/** One row of {@code tus_uploads}: an upload as PostgreSQL knows it (its offset lives on disk). */
public record UploadRow(String id, String target, String ownerId, String folderId, String fileName,
    String mimeType, long length, long recordedOffset, String resultId, Instant expiresAt, Instant completedAt) {

  /** Whether it expired at {@code now}: it answers 410 until the sweeper removes it. */
  public boolean expiredAt(Instant now) {
    return !expiresAt.isAfter(now);
  }

  public boolean completed() {
    return completedAt != null;
  }

  static UploadRow of(Row r) {
    UUID folder = r.getUUID("folder_id");
    OffsetDateTime completed = r.getOffsetDateTime("completed_at");
    return new UploadRow(r.getUUID("id").toString(), r.getString("target"), r.getUUID("owner_id").toString(),
        folder == null ? null : folder.toString(), r.getString("file_name"), r.getString("mime_type"),
        r.getLong("upload_length"), r.getLong("upload_offset"), r.getUUID("result_id").toString(),
        r.getOffsetDateTime("expires_at").toInstant(), completed == null ? null : completed.toInstant());
  }
}
