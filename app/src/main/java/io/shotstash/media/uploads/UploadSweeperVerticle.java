package io.shotstash.media.uploads;

import io.shotstash.bus.Addresses;
import io.shotstash.bus.SweepVerticle;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/**
 * Every {@link #PERIOD_SECONDS}: removes resumable uploads past their {@code Upload-Expires}, rows
 * and bytes ({@code SHOTSTASH_UPLOAD_EXPIRY_HOURS} after their last PATCH), and those their target
 * says are over (a worker's output whose claim ended). Runs on every node;
 * the statement skips rows another node is sweeping and uploads a request is writing, so sweeps may
 * overlap. {@code media.uploads.sweep} runs one now and answers {@code {removed}}.
 */
public final class UploadSweeperVerticle extends SweepVerticle {
  /** Expiry is counted in hours: a sweep a minute is plenty. */
  static final int PERIOD_SECONDS = 60;

  private final ResumableUploads uploads;

  public UploadSweeperVerticle(ResumableUploads uploads) {
    super(Addresses.MEDIA_UPLOADS_SWEEP, PERIOD_SECONDS);
    this.uploads = uploads;
  }

  @Override
  protected Future<JsonObject> sweep(JsonObject options) {
    return uploads.sweep().map(n -> new JsonObject().put("removed", n));
  }
}
