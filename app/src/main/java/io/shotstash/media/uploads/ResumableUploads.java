package io.shotstash.media.uploads;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.config.Config;
import io.shotstash.metrics.DomainMetrics;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.streams.ReadStream;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Resumable uploads (tus 1.0) for every {@link UploadTarget}: the rows in PostgreSQL
 * ({@link UploadSql}), the bytes on disk ({@link PartialFiles}) and the per-upload lock. The HTTP
 * routes parse and answer; this decides and does the I/O. One instance per node, shared by the
 * HTTP verticles.
 *
 * <p>Every request on an upload first reads its row without a lock: unknown or someone else's is
 * 404, expired is 410. A request that writes (PATCH, DELETE, finishing) then takes the upload's
 * lock (see {@link UploadSql}), reads the row again and the durable offset from disk, and only then
 * decides ({@link PatchRule}).
 */
public final class ResumableUploads {
  private static final String UPLOAD_BUSY = "upload_busy";
  /** The most uploads each target hands a sweep as over. */
  private static final int SWEEP_OVER_LIMIT = 500;

  private final Pool pool;
  private final UploadLocks locks;
  private final PartialFiles files;
  private final Map<String, UploadTarget> targets;
  private final int expiryHours;

  public ResumableUploads(Vertx vertx, Pool pool, Config.DatabaseUrl database, PartialFiles files,
      Map<String, UploadTarget> targets, int expiryHours) {
    this.pool = pool;
    this.locks = new UploadLocks(vertx, database);
    this.files = files;
    this.targets = Map.copyOf(targets);
    this.expiryHours = expiryHours;
  }

  /** Where an upload stands: its row, its durable offset, and its result's id once finished (else null). */
  public record Progress(UploadRow upload, long offset, String resultId) {}

  /** A PATCH's outcome: the new durable offset, the expiry, and the result's id once complete (else null). */
  public record Patched(long offset, Instant expiresAt, String resultId) {}

  public PartialFiles files() {
    return files;
  }

  public int expiryHours() {
    return expiryHours;
  }

  private UploadTarget target(String name) {
    UploadTarget t = targets.get(name);
    if (t == null) {
      throw new IllegalStateException("no upload target named " + name);
    }
    return t;
  }

  /** Creates an upload for {@code caller} into {@code target}; its bytes come with PATCHes. */
  public Future<UploadRow> create(Actor.Member caller, UnaryOperator<String> header, String target, NewUpload request) {
    return create(caller, caller.personId(), header, target, request);
  }

  /**
   * Creates an upload owned by {@code ownerId} (a person, or a worker) into {@code target}: its row
   * and what the target keeps beside it, in one transaction. A request without a folder leaves the
   * row's folder empty.
   */
  public Future<UploadRow> create(Actor caller, String ownerId, UnaryOperator<String> header, String target,
      NewUpload request) {
    UploadTarget t = target(target);
    UUID folder = request.folderId() == null ? null : UUID.fromString(request.folderId());
    return t.admitNew(caller, header, request).compose(v -> pool.withTransaction(tx -> tx
        .preparedQuery(UploadSql.INSERT)
        .execute(Tuple.tuple(Arrays.asList(UUID.fromString(Ids.uuid7()), t.name(),
            UUID.fromString(ownerId), folder, request.name(), request.mediaType(), request.length(),
            UUID.fromString(Ids.uuid7()), expiryHours)))
        .compose(rows -> {
          UploadRow row = UploadRow.of(rows.iterator().next());
          return t.created(tx, row, caller, header).map(row);
        })))
        .onSuccess(row -> DomainMetrics.resumableUploads("created", 1));
  }

  /**
   * HEAD: the durable offset. An upload whose bytes are all there but which was not finished (the
   * node stopped between the last PATCH's offset and its finish) is finished now, unless a request
   * holds its lock (that one finishes it).
   */
  public Future<Progress> status(Actor caller, UnaryOperator<String> header, String id) {
    return visible(caller, header, id).compose(row -> {
      if (row.completed()) {
        return Future.succeededFuture(new Progress(row, row.length(), row.resultId()));
      }
      return files.durable(row.id()).map(PartialFiles.Durable::offset).compose(offset -> {
        if (offset < row.length()) {
          return Future.succeededFuture(new Progress(row, offset, null));
        }
        return locked(id, conn -> current(conn, id).compose(now -> now.completed()
            ? Future.succeededFuture(new Progress(now, now.length(), now.resultId()))
            : finish(conn, now).map(resultId -> new Progress(now, now.length(), resultId))))
            .recover(
                err -> busy(err) ? Future.succeededFuture(new Progress(row, offset, null)) : Future.failedFuture(err));
      });
    });
  }

  /**
   * PATCH: appends {@code body} at {@code claimed} (the client's {@code Upload-Offset}), having
   * declared {@code declared} bytes (-1 for a chunked body). {@code accepted} runs once the checks
   * passed and the body is about to be read (the route answers {@code 100 Continue} then). A client
   * that goes away keeps what it sent; the returned future then fails with why.
   */
  public Future<Patched> patch(Actor caller, UnaryOperator<String> header, String id, long claimed, long declared,
      ReadStream<Buffer> body, Runnable accepted) {
    return visible(caller, header, id).compose(first -> locked(id, conn -> current(conn, id).compose(row -> {
      Future<PartialFiles.Durable> durable = row.completed()
          ? Future.succeededFuture(new PartialFiles.Durable(row.length(), 0)) : files.durable(id);
      return durable.compose(at -> {
        long offset = at.offset();
        PatchRule.Decision decision = PatchRule.check(offset, row.length(), claimed, declared);
        if (decision instanceof PatchRule.Conflict c) {
          return Future.failedFuture(ApiError.conflict("offset_mismatch", c.message()).toException());
        }
        if (decision instanceof PatchRule.TooLarge t) {
          return Future.failedFuture(ApiError.of(413, "body_too_large", t.message()).toException());
        }
        long max = ((PatchRule.Accept) decision).maxBytes();
        accepted.run();
        if (offset == row.length()) {
          // nothing to write (the rule accepts no byte past the length); answered once the (empty)
          // body has ended: answered before, the request stayed paused or still unread, and the next
          // one on its keep-alive connection was never read
          Future<Patched> nothing = row.completed()
              ? Future.succeededFuture(new Patched(row.length(), row.expiresAt(), row.resultId()))
              // every byte is durable but the upload was not finished (a crash between the last offset
              // and its finish, the part maybe moved already): finish it
              : finish(conn, row).map(resultId -> new Patched(offset, row.expiresAt(), resultId));
          return nothing.compose(p -> drained(body).map(p));
        }
        return files.append(id, at, body, max, declared).compose(appended -> {
          if (!appended.keep()) {
            return Future.failedFuture(appended.stoppedBy());
          }
          long now = offset + appended.written();
          // the target again, now that the bytes are in (a worker's claim may have ended meanwhile):
          // an upload that is over is removed with them rather than counted
          return target(row.target()).admit(caller, header, row)
              .compose(v -> recordOffset(conn, id, now))
              .compose(rows -> {
                UploadRow recorded = UploadRow.of(rows.iterator().next());
                Future<String> result = now == row.length() ? finish(conn, recorded) : Future.succeededFuture(null);
                return result.map(resultId -> new Patched(now, recorded.expiresAt(), resultId));
              })
              .compose(p -> appended.stoppedBy() == null ? Future.succeededFuture(p)
                  : Future.failedFuture(appended.stoppedBy()));
        });
      });
    })));
  }

  /**
   * Makes {@code offset} upload {@code id}'s durable offset (the offset file, {@link PartialFiles#commit})
   * and mirrors it in its row (moving the expiry on), both at once: only the file is ever read for an
   * offset, so a row ahead of it (the file's commit failed) misleads nobody. Done once both are
   * over, failed or not, so the lock is never freed while the file is still being written.
   */
  private Future<RowSet<Row>> recordOffset(SqlConnection conn, String id, long offset) {
    Future<Void> durable = files.commit(id, offset);
    Future<RowSet<Row>> mirrored =
        conn.preparedQuery(UploadSql.RECORD_OFFSET).execute(Tuple.of(UUID.fromString(id), offset, expiryHours));
    return Future.join(durable, mirrored).map(both -> mirrored.result());
  }

  /** Once {@code body}, which brings no byte this upload takes, has ended (any bytes are dropped). */
  private static Future<Void> drained(ReadStream<Buffer> body) {
    Promise<Void> ended = Promise.promise();
    body.handler(chunk -> {});
    body.exceptionHandler(ended::tryFail);
    body.endHandler(v -> ended.tryComplete());
    body.resume();
    return ended.future();
  }

  /** DELETE (termination): the row and the bytes go; a finished upload's result stays where it went. */
  public Future<Void> terminate(Actor caller, UnaryOperator<String> header, String id) {
    return visible(caller, header, id).compose(first -> locked(id, conn -> current(conn, id)
        .compose(row -> conn.preparedQuery(UploadSql.DELETE).execute(Tuple.of(UUID.fromString(id))))
        .compose(v -> files.delete(id)))).onSuccess(v -> DomainMetrics.resumableUploads("terminated", 1));
  }

  /**
   * Removes expired uploads (rows and bytes), then those their targets say are over
   * ({@link UploadTarget#over}); answers how many.
   */
  public Future<Integer> sweep() {
    return pool.withTransaction(tx -> tx.query(UploadSql.SWEEP_EXPIRED).execute())
        .compose(rows -> {
          List<Future<Void>> removed = new ArrayList<>();
          for (Row r : rows) {
            removed.add(files.delete(r.getUUID("id").toString()));
          }
          DomainMetrics.resumableUploads("expired", rows.rowCount());
          return Future.all(removed).map(rows.rowCount());
        })
        .compose(expired -> sweepOver().map(over -> expired + over));
  }

  /** The uploads every target says are over, each removed under its lock (one a request holds is that request's to remove). */
  private Future<Integer> sweepOver() {
    List<Future<Integer>> swept = new ArrayList<>();
    for (UploadTarget t : targets.values()) {
      swept.add(t.over(SWEEP_OVER_LIMIT).compose(ids -> {
        List<Future<Boolean>> removed = ids.stream().map(this::remove).toList();
        return Future.all(removed).map(all -> (int) removed.stream().filter(Future::result).count());
      }));
    }
    return Future.all(swept).map(all -> swept.stream().mapToInt(Future::result).sum());
  }

  /** The upload as {@code caller} may see it: 404 when unknown or not theirs, 410 when expired. */
  private Future<UploadRow> visible(Actor caller, UnaryOperator<String> header, String id) {
    if (!Ids.isUuid(id)) {
      return Future.failedFuture(ApiError.notFound().toException());
    }
    return pool.preparedQuery(UploadSql.UPLOAD).execute(Tuple.of(UUID.fromString(id))).compose(rows -> {
      if (rows.size() == 0) {
        return Future.failedFuture(ApiError.notFound().toException());
      }
      UploadRow row = UploadRow.of(rows.iterator().next());
      return target(row.target()).admit(caller, header, row)
          .recover(err -> err instanceof UploadTarget.Ended ended ? remove(id).transform(
              x -> Future.failedFuture(ended.refusal().toException())) : Future.failedFuture(err))
          .compose(v -> row.expiredAt(Instant.now())
              ? Future.failedFuture(expired().toException()) : Future.succeededFuture(row));
    });
  }

  /**
   * An upload its target ended ({@link UploadTarget.Ended}) goes, row and bytes, under its lock. When
   * a request holds the lock, that request removes it: it asks its target again before its bytes count.
   */
  private Future<Boolean> remove(String id) {
    return locked(id, conn -> removeLocked(conn, id).map(true))
        .recover(err -> busy(err) ? Future.succeededFuture(false) : Future.failedFuture(err));
  }

  /** Whether a failure is {@link #locked}'s "another request holds the lock". */
  private static boolean busy(Throwable err) {
    ApiError e = ApiError.from(err);
    return e != null && UPLOAD_BUSY.equals(e.code());
  }

  private Future<Void> removeLocked(SqlConnection conn, String id) {
    return conn.preparedQuery(UploadSql.DELETE).execute(Tuple.of(UUID.fromString(id))).compose(v -> files.delete(id));
  }

  private static ApiError expired() {
    return ApiError.of(410, "upload_expired", "This upload expired and its bytes were removed; start a new one");
  }

  /** The row again, under the lock: it may have been ended or swept since it was first read. */
  private Future<UploadRow> current(SqlConnection conn, String id) {
    return conn.preparedQuery(UploadSql.UPLOAD).execute(Tuple.of(UUID.fromString(id))).compose(rows -> {
      if (rows.size() == 0) {
        return Future.failedFuture(ApiError.notFound().toException());
      }
      UploadRow row = UploadRow.of(rows.iterator().next());
      return row.expiredAt(Instant.now()) && !row.completed() ? Future.failedFuture(expired().toException())
          : Future.succeededFuture(row);
    });
  }

  /** The finished bytes to their target, once: the target finds its earlier result if there is one. */
  private Future<String> finish(SqlConnection conn, UploadRow row) {
    // an empty file never had a PATCH write its part: make it (again, harmlessly, after a crash)
    Future<Void> ready = row.length() == 0 ? files.commit(row.id(), 0) : Future.succeededFuture();
    return ready.compose(v -> target(row.target()).finish(row, files.part(row.id())))
        .compose(resultId -> conn.preparedQuery(UploadSql.MARK_COMPLETED).execute(Tuple.of(UUID.fromString(row.id())))
            .onSuccess(marked -> DomainMetrics.resumableUploads("completed", marked.rowCount()))
            .compose(v -> files.delete(row.id()))
            .map(resultId));
  }

  /**
   * Runs {@code work} holding upload {@code id}'s lock ({@link UploadLocks}); 409 {@code upload_busy}
   * at once when another request holds it. Work that fails with {@link UploadTarget.Ended} removes
   * the upload before the refusal is answered.
   */
  private <T> Future<T> locked(String id, Function<SqlConnection, Future<T>> work) {
    return locks.holding(id, conn -> work.apply(conn).recover(err -> err instanceof UploadTarget.Ended ended
        ? removeLocked(conn, id).transform(x -> Future.<T>failedFuture(ended.refusal().toException()))
        : Future.failedFuture(err)))
        .recover(err -> err instanceof UploadLocks.Busy ? Future.failedFuture(ApiError.conflict(UPLOAD_BUSY,
            "Another request is writing this upload; ask HEAD for the offset and go on from there").toException())
            : Future.failedFuture(err));
  }
}
