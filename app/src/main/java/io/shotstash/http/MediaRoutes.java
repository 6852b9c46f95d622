package io.shotstash.http;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.bus.Requests;
import io.shotstash.media.LibraryVerticle;
import io.shotstash.media.Storage;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.core.streams.ReadStream;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;
import java.util.Set;

/**
 * The media library over HTTP: {@code POST /api/v1/files?folderId=} (a raw, streamed upload into a
 * folder; editors and up)
 * and the downloads {@code GET|HEAD /media/o/:fileId} (originals) and {@code /media/p/:versionId}
 * (processed versions), with Range, for any signed-in person.
 */
record MediaRoutes(Vertx vertx, HttpServices services, Storage storage) {
  /** Bodies a browser form or {@code curl -F}/{@code -d} sends: never the file itself. */
  private static final Set<String> FORM_TYPES = Set.of("multipart/form-data", "application/x-www-form-urlencoded");
  private static final String RAW_BYTES = "Send the file's raw bytes as the body (curl --data-binary @clip.mp4), "
      + "not a form: its media type in Content-Type, its name in X-File-Name";

  void mountApi(Router router) {
    router.post("/api/v1/files").handler(ctx -> Routes.run(ctx, upload(ctx)));
  }

  void mountDownloads(Router router) {
    router.get("/media/avatars/:file").handler(ctx -> Routes.run(ctx, avatar(ctx)));
    router.head("/media/avatars/:file").handler(ctx -> Routes.run(ctx, avatar(ctx)));
    router.get("/media/o/:fileId").handler(ctx -> Routes.run(ctx, original(ctx)));
    router.head("/media/o/:fileId").handler(ctx -> Routes.run(ctx, original(ctx)));
    router.get("/media/p/:versionId").handler(ctx -> Routes.run(ctx, version(ctx)));
    router.head("/media/p/:versionId").handler(ctx -> Routes.run(ctx, version(ctx)));
  }

  private Future<JsonObject> library(String action, JsonObject body) {
    return Requests.ask(vertx, Addresses.MEDIA_LIBRARY, action, body);
  }

  private Future<Void> upload(RoutingContext ctx) {
    Actor.Member member = Callers.atLeast(ctx, AccountLevel.EDITOR);
    HttpServerRequest req = ctx.request();
    req.pause();
    ReadStream<Buffer> body = Uploads.body(req);
    String rawName = req.getHeader("X-File-Name");
    // raw UTF-8 bytes, as curl sends them: read back as text, never stored as their Latin-1 look-alike
    String name = HeaderText.utf8(rawName);
    String contentType = req.getHeader("Content-Type");
    JsonBody.Problems problems = new JsonBody.Problems();
    if (rawName != null && name == null) {
      problems.add("X-File-Name", "must be UTF-8 text (send the name's UTF-8 bytes as they are)");
    } else if (name == null || name.isBlank() || name.length() > 255 || name.chars().anyMatch(Character::isISOControl)
        || name.contains("/") || name.contains("\\")) {
      problems.add("X-File-Name", "must be a file name of 1 to 255 characters, without / or control characters");
    }
    String mediaType = contentType == null ? null : contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    if (FORM_TYPES.contains(mediaType)) {
      // a form (curl -F, or -d without a type) would be stored as one file of form bytes, named and
      // typed wrongly: say how to send the file instead
      throw new ApiError(422, "validation_failed", RAW_BYTES,
          new JsonObject().put("Content-Type", mediaType + " is not accepted: " + RAW_BYTES), null).toException();
    }
    if (mediaType == null || !mediaType.matches("[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*")) {
      problems.add("Content-Type", "must be the file's media type, e.g. video/mp4");
    }
    String folderId = req.getParam("folderId");
    if (folderId == null || folderId.isEmpty()) {
      // the library lists files by folder (GraphQL folders, the jobs view): a file outside every
      // folder could be uploaded but never found again
      problems.add("folderId", "required: create a folder first (GraphQL createFolder) and pass its id");
    } else if (!Ids.isUuid(folderId)) {
      problems.add("folderId", "no such folder");
    }
    long limit = services.config().maxUploadBytes();
    String length = req.getHeader("Content-Length");
    long declared = length != null && length.matches("\\d{1,18}") ? Long.parseLong(length) : -1;
    if (declared > limit || (length != null && length.matches("\\d{19}"))) {
      throw ApiError.of(413, "body_too_large", "Uploads are limited to " + (limit >> 20) + " MB").toException();
    }
    problems.throwIfAny();
    Future<Void> folderOk =
        library(LibraryVerticle.Actions.FOLDER, new JsonObject().put("id", folderId)).<Void>mapEmpty()
            .recover(err -> Future.failedFuture(ApiError.validation("folderId", "no such folder").toException()));
    String fileId = Ids.uuid7();
    String key = Storage.originalKey(fileId);
    return folderOk
        .compose(v -> {
          Uploads.continueIfExpected(req);
          return storage.write(key, body, limit, declared);
        })
        .recover(err -> Future.failedFuture(Uploads.refusalFor(err,
            ApiError.of(413, "body_too_large", "Uploads are limited to " + (limit >> 20) + " MB"))))
        .compose(written -> library(LibraryVerticle.Actions.CREATE_FILE, new JsonObject().put("id", fileId)
            .put("folderId", folderId).put("name", name.strip()).put("mimeType", mediaType).put("size", written.size())
            .put("storageKey", key).put("personId", member.personId()))
            .recover(err -> storage.delete(key).transform(x -> Future.failedFuture(err))))
        .compose(file -> Envelope.ok(ctx, 201, new JsonObject().put("id", file.getString("id"))
            .put("name", file.getString("name")).put("mimeType", file.getString("mimeType"))
            .put("size", file.getLong("size")).put("folderId", file.getString("folderId"))));
  }

  /** Avatars are public profile data: served while a person who is not deactivated uses them. */
  private Future<Void> avatar(RoutingContext ctx) {
    ctx.request().resume();
    String file = ctx.pathParam("file");
    if (file == null
        || !file.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.(png|jpg|webp|gif)")) {
      throw ApiError.notFound().toException();
    }
    boolean used = services.publicState().current().find(io.shotstash.publicdata.Sheet.PEOPLE, "avatarKey", file,
        io.shotstash.publicdata.records.Person.class).stream().anyMatch(p -> !p.isDeactivated());
    if (!used) {
      throw ApiError.notFound().toException();
    }
    String ext = file.substring(file.lastIndexOf('.') + 1);
    String type = switch (ext) {
      case "png" -> "image/png";
      case "jpg" -> "image/jpeg";
      case "webp" -> "image/webp";
      default -> "image/gif";
    };
    java.nio.file.Path path = storage.path(Storage.avatarKey(file));
    return vertx.fileSystem().props(path.toString()).compose(props -> {
      ctx.response().putHeader("Cache-Control", "public, max-age=86400");
      return Downloads.send(ctx, path, props.size(), type, null, ctx.request().getHeader("Range"));
    });
  }

  private Future<Void> original(RoutingContext ctx) {
    return stored(ctx, "fileId", LibraryVerticle.Actions.FILE).compose(file -> Downloads.send(ctx,
        storage.path(file.getString("storageKey")), file.getLong("size"), file.getString("mimeType"),
        file.getString("name"), ctx.request().getHeader("Range")));
  }

  private Future<Void> version(RoutingContext ctx) {
    return stored(ctx, "versionId", LibraryVerticle.Actions.VERSION).compose(
        v -> Downloads.send(ctx, storage.path(v.getString("storageKey")), v.getLong("size"), v.getString("mimeType"),
            baseName(v.getString("fileName")) + "." + v.getString("kind").replace('/', '-') + "." + v.getString("ext"),
            ctx.request().getHeader("Range")));
  }

  /** For a signed-in member: the library's {@code action} on the id in path parameter {@code param} (404 if not a UUID). */
  private Future<JsonObject> stored(RoutingContext ctx, String param, String action) {
    Callers.member(ctx);
    ctx.request().resume();
    String id = ctx.pathParam(param);
    if (!Ids.isUuid(id)) {
      throw ApiError.notFound().toException();
    }
    return library(action, new JsonObject().put("id", id));
  }

  private static String baseName(String name) {
    int dot = name.lastIndexOf('.');
    return dot > 0 ? name.substring(0, dot) : name;
  }
}
