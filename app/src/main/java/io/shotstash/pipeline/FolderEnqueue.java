package io.shotstash.pipeline;

import io.shotstash.auth.Ids;
import io.shotstash.pipeline.contract.Kinds;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * {@code enqueueFolder}: a kind queued for every live file of a folder (and, if asked, of its live
 * sub-folders) that the kind accepts, at {@link JobPriority#FOLDER}, so a person's single-file job
 * still goes first. A folder of 50,000 files is not one long transaction: the files are taken in
 * bounded batches ({@link #BATCH} per statement, keyset over the file id, one folder after another),
 * each one set-based statement and its own commit ({@link PipelineSql#ENQUEUE_FOLDER_BATCH}). The
 * batches run one after the other on one connection of the durable pool, so the call never holds
 * more than one connection, never blocks the event loop (each batch is a query in flight), and the
 * claims, which run on the other pool and skip locked rows, go on meanwhile. A batch that fails
 * leaves the earlier ones queued; calling again queues the rest (the files already queued are
 * skipped). Statements in {@link PipelineSql}; one instance per job-queue instance, on its loop.
 */
record FolderEnqueue(Pool pool) {
  /** Files per batch (and per transaction). */
  static final int BATCH = 1000;

  private static final UUID BEFORE_EVERY_ID = new UUID(0, 0);

  /** What one call did: files queued, skipped (an open job of the kind), not accepted by the kind. */
  record Counts(long queued, long skipped, long notApplicable) {
    Counts plus(long accepted, long queuedNow, long files) {
      return new Counts(queued + queuedNow, skipped + accepted - queuedNow, notApplicable + files - accepted);
    }

    JsonObject json() {
      return new JsonObject().put("queued", queued).put("skipped", skipped).put("notApplicable", notApplicable);
    }
  }

  /** {folderId, kind, includeSubfolders, personId} → {queued, skipped, notApplicable}. */
  Future<JsonObject> enqueue(JsonObject msg) {
    String folder = msg.getString("folderId");
    String kind = msg.getString("kind");
    if (!Ids.isUuid(folder)) {
      return Future.failedFuture(PipelineErrors.folderNotFound().toException());
    }
    if (!Kinds.valid(kind)) {
      return Future.failedFuture(PipelineErrors.kindUnknown(kind).toException());
    }
    UUID folderId = UUID.fromString(folder);
    UUID personId = msg.getString("personId") == null ? null : UUID.fromString(msg.getString("personId"));
    boolean subfolders = msg.getBoolean("includeSubfolders", false);
    return pool.preparedQuery(PipelineSql.FOLDER).execute(Tuple.of(folderId)).compose(rows -> {
      if (rows.size() == 0 || rows.iterator().next().getValue("trashed_at") != null) {
        return Future.failedFuture(PipelineErrors.folderNotFound().toException());
      }
      return pool.preparedQuery(PipelineSql.KIND).execute(Tuple.of(kind));
    }).compose(kinds -> {
      if (kinds.size() == 0) {
        return Future.failedFuture(PipelineErrors.kindUnknown(kind).toException());
      }
      String[] accepts = kinds.iterator().next().getArrayOfStrings("accepts");
      Future<List<UUID>> folders = subfolders ? tree(folderId) : Future.succeededFuture(List.of(folderId));
      Batches run = new Batches(kind, accepts, personId);
      return folders.compose(list -> run.folders(list, 0, new Counts(0, 0, 0))).map(Counts::json);
    });
  }

  private Future<List<UUID>> tree(UUID folderId) {
    return pool.preparedQuery(PipelineSql.FOLDER_TREE).execute(Tuple.of(folderId)).map(rows -> {
      List<UUID> ids = new ArrayList<>(rows.size());
      rows.forEach(r -> ids.add(r.getUUID("id")));
      return ids;
    });
  }

  /** The batches of one call: folder after folder, each from its first file to its last. */
  private final class Batches {
    private final String kind;
    private final String[] accepts;
    private final UUID personId;

    Batches(String kind, String[] accepts, UUID personId) {
      this.kind = kind;
      this.accepts = accepts;
      this.personId = personId;
    }

    Future<Counts> folders(List<UUID> folders, int index, Counts counts) {
      if (index == folders.size()) {
        return Future.succeededFuture(counts);
      }
      return batch(folders.get(index), BEFORE_EVERY_ID, counts).compose(c -> folders(folders, index + 1, c));
    }

    /** The next batch of the folder after file {@code after}, then the one after it, until the folder is done. */
    private Future<Counts> batch(UUID folder, UUID after, Counts counts) {
      UUID[] ids = new UUID[BATCH];
      for (int i = 0; i < BATCH; i++) {
        ids[i] = UUID.fromString(Ids.uuid7());
      }
      Arrays.sort(ids); // in file order, so the jobs of one batch are claimed in file order too
      Tuple args = Tuple.of(folder, after, BATCH, accepts, ids, kind, JobPriority.FOLDER.value(), personId);
      return pool.preparedQuery(PipelineSql.ENQUEUE_FOLDER_BATCH).execute(args).compose(rows -> {
        Row r = rows.iterator().next();
        UUID last = r.getUUID("last");
        Counts now = counts.plus(r.getLong("accepted"), r.getLong("queued"), r.getLong("files"));
        return last == null || r.getLong("files") < BATCH ? Future.succeededFuture(now) : batch(folder, last, now);
      });
    }
  }
}
