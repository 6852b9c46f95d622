package io.shotstash.media.uploads;

import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.media.Storage;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import java.nio.file.Path;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Where an upload's finished bytes go and who may write to it: the part of a resumable upload that
 * differs between a file for the library ({@link LibraryTarget}) and a worker's output for a job it
 * holds the claim of ({@code pipeline/JobOutputTarget}: the claim is checked at every request). The
 * protocol, the lock and the bytes on disk ({@link ResumableUploads}) are the same for every target.
 */
public interface UploadTarget {
  /**
   * A refusal that also ends the upload for good (a worker's claim is over): {@link ResumableUploads}
   * removes the upload's row and bytes, then answers {@link #refusal()}. Fail with it from
   * {@link #admit} or {@link #finish}.
   */
  final class Ended extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient ApiError refusal;

    public Ended(ApiError refusal) {
      super(refusal.code(), null, false, false);
      this.refusal = refusal;
    }

    public ApiError refusal() {
      return refusal;
    }
  }

  /** The name stored in {@code tus_uploads.target}. */
  String name();

  /**
   * Whether {@code caller} may create an upload of {@code request}; fails with the refusal (an
   * {@code ApiError}) otherwise. {@code header} reads the request's headers.
   */
  Future<Void> admitNew(Actor caller, UnaryOperator<String> header, NewUpload request);

  /**
   * Writes what this target keeps about a new upload beside its row, in the transaction that inserts
   * the row (so neither exists without the other). Nothing by default.
   */
  default Future<Void> created(SqlConnection tx, UploadRow upload, Actor caller, UnaryOperator<String> header) {
    return Future.succeededFuture();
  }

  /**
   * Whether {@code caller} may read, write or end {@code upload} now: asked at every request on it
   * (HEAD, each PATCH, DELETE), and again once a PATCH's bytes are in, before they count. Someone
   * else's upload fails with 404, as if it did not exist; an upload that is over fails with
   * {@link Ended}.
   */
  Future<Void> admit(Actor caller, UnaryOperator<String> header, UploadRow upload);

  /**
   * Up to {@code limit} ids of this target's uploads that are over for good, whether or not anyone
   * asks about them again (a worker's claim that ended): the upload sweeper removes them, each under
   * its lock. None by default.
   */
  default Future<List<String>> over(int limit) {
    return Future.succeededFuture(List.of());
  }

  /**
   * Makes the finished bytes at {@code bytes} (forced to disk) what they were uploaded for, and
   * answers the id of the result ({@code upload.resultId()}). Called under the upload's lock, and
   * again after a crash between its steps: it must find a result already made rather than make a
   * second one, and accept that {@code bytes} was already moved.
   */
  Future<String> finish(UploadRow upload, Path bytes);

  /**
   * {@code adopted} (the finished bytes, moved to where they belong) when it holds exactly the
   * upload's {@code Upload-Length}; what every target's {@link #finish} checks before it records the
   * result.
   */
  static Future<Storage.Written> whole(UploadRow upload, Storage.Written adopted) {
    if (adopted.size() != upload.length()) {
      return Future.failedFuture(new IllegalStateException("upload " + upload.id() + " finished with "
          + adopted.size() + " bytes, not its Upload-Length " + upload.length()));
    }
    return Future.succeededFuture(adopted);
  }
}
