package io.shotstash.media.uploads;

import io.shotstash.auth.Actor;
import io.vertx.core.Future;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * Where an upload's finished bytes go and who may write to it: the part of a resumable upload that
 * differs between a file for the library ({@link LibraryTarget}) and, later, a worker's output for a
 * job it holds the claim of (issue #20, item 2: the claim would be checked here at every PATCH). The
 * protocol, the lock and the bytes on disk ({@link ResumableUploads}) are the same for every target.
 */
public interface UploadTarget {
  /** The name stored in {@code tus_uploads.target}. */
  String name();

  /**
   * Whether {@code caller} may create an upload of {@code request}; fails with the refusal (an
   * {@code ApiError}) otherwise. {@code header} reads the request's headers.
   */
  Future<Void> admitNew(Actor caller, UnaryOperator<String> header, NewUpload request);

  /**
   * Whether {@code caller} may read, write or end {@code upload} now: asked at every request on it
   * (HEAD, each PATCH, DELETE). Someone else's upload fails with 404, as if it did not exist.
   */
  Future<Void> admit(Actor caller, UnaryOperator<String> header, UploadRow upload);

  /**
   * Makes the finished bytes at {@code bytes} (forced to disk) what they were uploaded for, and
   * answers the id of the result ({@code upload.resultId()}). Called under the upload's lock, and
   * again after a crash between its steps: it must find a result already made rather than make a
   * second one, and accept that {@code bytes} was already moved.
   */
  Future<String> finish(UploadRow upload, Path bytes);
}
