package io.shotstash.media;

import io.shotstash.auth.Ids;
import io.shotstash.bus.ActionDispatcher;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Json;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The media library (address {@code media.library}): folders, original files, processed versions
 * and the Trash. Bodies are streamed by the HTTP verticle to {@link Storage}; this verticle only
 * records them. Statements live in {@link LibrarySql}.
 */
public final class LibraryVerticle extends VerticleBase {

  /** The {@code action} header values this verticle answers. */
  public static final class Actions {
    private Actions() {}

    public static final String CREATE_FOLDER = "folder.create";
    public static final String FOLDERS = "folders";
    public static final String FOLDER = "folder";
    public static final String TRASH_FOLDER = "folder.trash";
    public static final String CREATE_FILE = "file.create";
    public static final String FILE = "file";
    public static final String TRASH_FILE = "file.trash";
    public static final String RESTORE_FILE = "file.restore";
    public static final String VERSION = "version";
  }

  private final Pool pool;
  private final Storage storage;

  public LibraryVerticle(Pool pool, Storage storage) {
    this.pool = pool;
    this.storage = storage;
  }

  @Override
  public Future<?> start() {
    return new ActionDispatcher(Addresses.MEDIA_LIBRARY)
        .on(Actions.CREATE_FOLDER, this::createFolder)
        .on(Actions.FOLDERS, this::folders)
        .on(Actions.FOLDER, this::folder)
        .on(Actions.TRASH_FOLDER, this::trashFolder)
        .on(Actions.CREATE_FILE, this::createFile)
        .on(Actions.FILE, this::file)
        .on(Actions.TRASH_FILE, this::trashFile)
        .on(Actions.RESTORE_FILE, this::restoreFile)
        .on(Actions.VERSION, this::version)
        .register(vertx);
  }

  private static Future<UUID> id(JsonObject msg, String field, ApiError ifBad) {
    String s = msg.getString(field);
    return Ids.isUuid(s) ? Future.succeededFuture(UUID.fromString(s)) : Future.failedFuture(ifBad.toException());
  }

  private static UUID personId(JsonObject msg) {
    String s = msg.getString("personId");
    return s == null ? null : UUID.fromString(s);
  }

  private Future<JsonObject> createFolder(JsonObject msg) {
    String name = msg.getString("name");
    String parent = msg.getString("parentId");
    Future<UUID> parentId = parent == null ? Future.succeededFuture(null)
        : id(msg, "parentId", ApiError.validation("parentId", "no such folder"))
            .compose(p -> pool.preparedQuery(LibrarySql.FOLDER_EXISTS)
                .execute(Tuple.of(p)).compose(rows -> rows.size() == 0
                    ? Future.failedFuture(ApiError.validation("parentId", "no such folder").toException())
                    : Future.succeededFuture(p)));
    return parentId.compose(p -> pool.preparedQuery(LibrarySql.INSERT_FOLDER)
        .execute(Tuple.of(UUID.fromString(Ids.uuid7()), name, p, personId(msg))))
        .map(rows -> folderJson(rows.iterator().next()));
  }

  private Future<JsonObject> folders(JsonObject msg) {
    return pool.query(LibrarySql.FOLDERS).execute().map(rows -> {
      JsonArray list = new JsonArray();
      rows.forEach(r -> list.add(folderJson(r)));
      return new JsonObject().put("folders", list);
    });
  }

  /** {id} → the folder and its files (each with its processed versions). */
  private Future<JsonObject> folder(JsonObject msg) {
    return id(msg, "id", ApiError.notFound()).compose(id -> pool.preparedQuery(LibrarySql.FOLDER).execute(Tuple.of(id))
        .compose(rows -> {
          if (rows.size() == 0 || rows.iterator().next().getValue("trashed_at") != null) {
            return Future.failedFuture(ApiError.notFound().toException());
          }
          JsonObject folder = folderJson(rows.iterator().next());
          return pool.preparedQuery(LibrarySql.FILES_OF_FOLDER).execute(Tuple.of(id)).compose(files -> {
            List<Future<JsonObject>> withVersions = new ArrayList<>();
            files.forEach(f -> withVersions.add(withVersions(fileJson(f))));
            return Future.all(withVersions).map(all -> folder.put("files", new JsonArray(all.list())));
          });
        }));
  }

  private Future<JsonObject> withVersions(JsonObject file) {
    return pool.preparedQuery(LibrarySql.VERSIONS_OF_FILE).execute(Tuple.of(UUID.fromString(file.getString("id"))))
        .map(rows -> {
          JsonArray versions = new JsonArray();
          rows.forEach(r -> versions.add(versionJson(r)));
          return file.put("processedVersions", versions);
        });
  }

  private Future<JsonObject> createFile(JsonObject msg) {
    return pool.preparedQuery(LibrarySql.INSERT_FILE).execute(Tuple.tuple(java.util.Arrays.asList(
        UUID.fromString(msg.getString("id")),
        msg.getString("folderId") == null ? null : UUID.fromString(msg.getString("folderId")),
        msg.getString("name"), msg.getString("mimeType"), msg.getLong("size"), msg.getString("storageKey"),
        personId(msg))))
        .map(rows -> fileJson(rows.iterator().next()).put("processedVersions", new JsonArray()));
  }

  /** {id, includeTrashed?} → the file with its versions; 404 for a trashed file unless asked. */
  private Future<JsonObject> file(JsonObject msg) {
    return id(msg, "id", ApiError.notFound()).compose(id -> pool.preparedQuery(LibrarySql.FILE).execute(Tuple.of(id)))
        .compose(rows -> {
          if (rows.size() == 0) {
            return Future.failedFuture(ApiError.notFound().toException());
          }
          JsonObject file = fileJson(rows.iterator().next());
          if (file.getString("trashedAt") != null && !msg.getBoolean("includeTrashed", false)) {
            return Future.failedFuture(ApiError.notFound().toException());
          }
          return withVersions(file);
        });
  }

  private Future<JsonObject> trashFile(JsonObject msg) {
    return id(msg, "id", ApiError.notFound()).compose(id -> {
      List<String> deletable = new ArrayList<>();
      return pool.withTransaction(tx -> trashOne(tx, id, deletable))
          .onSuccess(v -> deletable.forEach(k -> storage.delete(k).otherwiseEmpty()))
          .compose(v -> file(new JsonObject().put("id", id.toString()).put("includeTrashed", true)));
    });
  }

  /** Marks one file trashed and cancels its unfinished jobs ("file trashed"). */
  private Future<Void> trashOne(SqlConnection tx, UUID id, List<String> deletable) {
    return tx.preparedQuery(LibrarySql.LOCK_FILE).execute(Tuple.of(id)).compose(rows -> {
      if (rows.size() == 0) {
        return Future.failedFuture(ApiError.notFound().toException());
      }
      return tx.preparedQuery(LibrarySql.TRASH_FILE).execute(Tuple.of(id))
          .compose(r -> tx.preparedQuery(LibrarySql.CANCEL_JOBS_OF_FILE).execute(Tuple.of(id)))
          .map(cancelled -> {
            for (Row c : cancelled) {
              if (c.getString("previous") != null) {
                deletable.add(c.getString("previous"));
              }
              vertx.eventBus().publish(Addresses.PIPELINE_JOB_UPDATED, new JsonObject()
                  .put("id", c.getUUID("id").toString()).put("seq", c.getLong("seq")).put("status", "cancelled"));
            }
            return null;
          });
    });
  }

  private Future<JsonObject> restoreFile(JsonObject msg) {
    return id(msg, "id", ApiError.notFound())
        .compose(id -> pool.preparedQuery(LibrarySql.RESTORE_FILE).execute(Tuple.of(id))
            .compose(r -> r.rowCount() == 0 ? Future.failedFuture(ApiError.notFound().toException())
                : file(new JsonObject().put("id", id.toString()))));
  }

  private Future<JsonObject> trashFolder(JsonObject msg) {
    return id(msg, "id", ApiError.notFound()).compose(id -> {
      List<String> deletable = new ArrayList<>();
      return pool.withTransaction(tx -> tx.preparedQuery(LibrarySql.FILES_OF_FOLDER_TREE).execute(Tuple.of(id))
          .compose(files -> {
            Future<Void> chain = Future.succeededFuture();
            for (Row f : files) {
              UUID fileId = f.getUUID("id");
              chain = chain.compose(v -> trashOne(tx, fileId, deletable));
            }
            return chain;
          })
          .compose(v -> tx.preparedQuery(LibrarySql.TRASH_FOLDER_TREE).execute(Tuple.of(id))))
          .onSuccess(v -> deletable.forEach(k -> storage.delete(k).otherwiseEmpty()))
          .map(r -> new JsonObject().put("id", id.toString()).put("trashed", r.rowCount() > 0));
    });
  }

  /** {id} → {storageKey, mimeType, ext, size, fileId, fileName}; 404 when missing or its file is trashed. */
  private Future<JsonObject> version(JsonObject msg) {
    return id(msg, "id", ApiError.notFound())
        .compose(id -> pool.preparedQuery(LibrarySql.VERSION).execute(Tuple.of(id)))
        .compose(rows -> {
          if (rows.size() == 0 || rows.iterator().next().getValue("trashed_at") != null) {
            return Future.failedFuture(ApiError.notFound().toException());
          }
          Row r = rows.iterator().next();
          return Future.succeededFuture(new JsonObject().put("id", r.getUUID("id").toString())
              .put("fileId", r.getUUID("file_id").toString()).put("kind", r.getString("kind"))
              .put("mimeType", r.getString("mime_type")).put("ext", r.getString("ext")).put("size", r.getLong("size"))
              .put("storageKey", r.getString("storage_key")).put("fileName", r.getString("name")));
        });
  }

  static JsonObject folderJson(Row r) {
    java.util.UUID parent = r.getUUID("parent_id");
    return new JsonObject().put("id", r.getUUID("id").toString()).put("name", r.getString("name"))
        .put("parentId", parent == null ? null : parent.toString())
        .put("createdAt", Json.iso(r.getOffsetDateTime("created_at")));
  }

  static JsonObject fileJson(Row r) {
    UUID folder = r.getUUID("folder_id");
    return new JsonObject().put("id", r.getUUID("id").toString())
        .put("folderId", folder == null ? null : folder.toString())
        .put("name", r.getString("name")).put("mimeType", r.getString("mime_type")).put("size", r.getLong("size"))
        .put("storageKey", r.getString("storage_key")).put("status", r.getString("status"))
        .put("createdAt", Json.iso(r.getOffsetDateTime("created_at")))
        .put("trashedAt", Json.iso(r.getOffsetDateTime("trashed_at")));
  }

  static JsonObject versionJson(Row r) {
    String id = r.getUUID("id").toString();
    return new JsonObject().put("id", id).put("fileId", r.getUUID("file_id").toString())
        .put("jobId", r.getUUID("job_id").toString()).put("attempt", r.getInteger("attempt"))
        .put("kind", r.getString("kind"))
        .put("mimeType", r.getString("mime_type")).put("ext", r.getString("ext")).put("size", r.getLong("size"))
        .put("createdAt", Json.iso(r.getOffsetDateTime("created_at"))).put("downloadUrl", "/media/p/" + id);
  }
}
