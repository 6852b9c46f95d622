package io.shotstash.media.uploads;

import io.shotstash.auth.Actor;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.media.LibraryVerticle;
import io.shotstash.media.Storage;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * A resumable upload that becomes a file of the media library, as {@code POST /api/v1/files} makes
 * one: its bytes under {@link Storage#originalKey} and a file row through the library verticle. Only
 * the person who created the upload may use it (anyone else gets 404); the route checks the account
 * level (editors and up) first, as the plain upload does.
 */
public record LibraryTarget(Vertx vertx, Storage storage) implements UploadTarget {
  public static final String NAME = "library";

  @Override
  public String name() {
    return NAME;
  }

  /** The folder must exist and not be in the Trash: else 404, as a folder one cannot see. */
  @Override
  public Future<Void> admitNew(Actor caller, UnaryOperator<String> header, NewUpload request) {
    return Requests.ask(vertx, Addresses.MEDIA_LIBRARY, LibraryVerticle.Actions.FOLDER,
        new JsonObject().put("id", request.folderId())).<Void>mapEmpty()
        .recover(err -> ApiError.from(err) != null && ApiError.from(err).status() == 404
            ? Future.failedFuture(ApiError.of(404, "not_found", "No such folder").toException())
            : Future.failedFuture(err));
  }

  @Override
  public Future<Void> admit(Actor caller, UnaryOperator<String> header, UploadRow upload) {
    if (caller instanceof Actor.Member m && m.personId().equals(upload.ownerId())) {
      return Future.succeededFuture();
    }
    return Future.failedFuture(ApiError.notFound().toException());
  }

  /**
   * The part renamed to the original's key, then the file row with the id fixed at the upload's
   * creation, unless a row of that id exists (an earlier finish stopped before it was recorded).
   */
  @Override
  public Future<String> finish(UploadRow upload, Path bytes) {
    String fileId = upload.resultId();
    String key = Storage.originalKey(fileId);
    return storage.adopt(bytes, key).compose(adopted -> UploadTarget.whole(upload, adopted))
        .compose(written -> Requests.ask(vertx, Addresses.MEDIA_LIBRARY, LibraryVerticle.Actions.FILE,
            new JsonObject().put("id", fileId).put("includeTrashed", true)).map(fileId)
            .recover(err -> ApiError.from(err) != null && ApiError.from(err).status() == 404
                ? Requests.ask(vertx, Addresses.MEDIA_LIBRARY, LibraryVerticle.Actions.CREATE_FILE,
                    new JsonObject().put("id", fileId).put("folderId", upload.folderId()).put("name", upload.fileName())
                        .put("mimeType", upload.mimeType()).put("size", written.size()).put("storageKey", key)
                        .put("personId", upload.ownerId()))
                    .map(fileId)
                : Future.failedFuture(err)));
  }
}
