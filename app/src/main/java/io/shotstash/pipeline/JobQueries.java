package io.shotstash.pipeline;

import io.shotstash.auth.Ids;
import io.shotstash.bus.Json;
import io.shotstash.pipeline.contract.JobStatus;
import io.shotstash.pipeline.contract.Kinds;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * The people side of the job queue: queueing a job for a file, cancelling one, and what the app's
 * pages and GraphQL read (a job, a file's jobs, the kinds, the queue's status). Statements in
 * {@link PipelineSql}. One instance per job-queue instance, used on its event loop.
 */
record JobQueries(Pool pool, JobEvents events, int leaseSeconds) {
  /**
   * {fileId, kind, personId} → the job (the open one for this file and kind, if any), at
   * {@link JobPriority#PERSON}: a person waits for it. When the file's open job of that kind is still
   * queued from a folder's backlog, it moves ahead to the person's priority.
   */
  Future<JsonObject> enqueue(JsonObject msg) {
    String kind = msg.getString("kind");
    if (!Ids.isUuid(msg.getString("fileId"))) {
      return Future.failedFuture(PipelineErrors.fileNotFound().toException());
    }
    UUID fileId = UUID.fromString(msg.getString("fileId"));
    if (!Kinds.valid(kind)) {
      return Future.failedFuture(PipelineErrors.kindUnknown(kind).toException());
    }
    return pool.preparedQuery(PipelineSql.FILE).execute(Tuple.of(fileId)).compose(files -> {
      if (files.size() == 0 || files.iterator().next().getValue("trashed_at") != null) {
        return Future.failedFuture(PipelineErrors.fileNotFound().toException());
      }
      String mime = files.iterator().next().getString("mime_type");
      return pool.preparedQuery(PipelineSql.KIND).execute(Tuple.of(kind)).compose(kinds -> {
        if (kinds.size() == 0) {
          return Future.failedFuture(PipelineErrors.kindUnknown(kind).toException());
        }
        String[] accepts = kinds.iterator().next().getArrayOfStrings("accepts");
        if (!Kinds.applies(accepts == null ? null : Arrays.asList(accepts), mime)) {
          return Future.failedFuture(PipelineErrors.kindNotApplicable(kind, mime).toException());
        }
        UUID personId = msg.getString("personId") == null ? null : UUID.fromString(msg.getString("personId"));
        return pool.preparedQuery(PipelineSql.ENQUEUE)
            .execute(Tuple.of(UUID.fromString(Ids.uuid7()), fileId, kind, personId))
            .compose(ins -> ins.size() > 0 ? Future.succeededFuture(ins.iterator().next().getUUID("id"))
                : openJob(fileId, kind))
            .compose(this::jobView);
      });
    });
  }

  /** The file's open job of the kind, which a person's enqueue found; moved ahead if a folder queued it. */
  private Future<UUID> openJob(UUID fileId, String kind) {
    return pool.preparedQuery(PipelineSql.PROMOTE).execute(Tuple.of(fileId, kind, JobPriority.PERSON.value()))
        .compose(promoted -> {
          if (promoted.size() > 0) {
            Row r = promoted.iterator().next();
            events.seqMoved(r.getUUID("id")); // only its priority (and seq) changed
            return Future.succeededFuture(r.getUUID("id"));
          }
          return pool.preparedQuery(PipelineSql.OPEN_JOB_OF_FILE_KIND).execute(Tuple.of(fileId, kind))
              .map(rows -> rows.iterator().next().getUUID("id"));
        });
  }

  /**
   * Runs a failed job's kind on its file again: a new job, queued like any (the failed one stays as
   * it is, its error on record). If the file already has an unfinished job of that kind, that job
   * is answered, as {@link #enqueue} does. Only a failed job: anything else is 409 JOB_NOT_FAILED.
   */
  Future<JsonObject> retry(JsonObject msg) {
    if (!Ids.isUuid(msg.getString("jobId"))) {
      return Future.failedFuture(PipelineErrors.jobNotFound().toException());
    }
    return pool.preparedQuery(PipelineSql.JOB_TO_RETRY).execute(Tuple.of(UUID.fromString(msg.getString("jobId"))))
        .compose(rows -> {
          if (rows.size() == 0) {
            return Future.failedFuture(PipelineErrors.jobNotFound().toException());
          }
          Row job = rows.iterator().next();
          if (JobStatus.parse(job.getString("status")) != JobStatus.FAILED) {
            return Future.failedFuture(PipelineErrors.jobNotFailed(job.getString("status")).toException());
          }
          return enqueue(new JsonObject().put("fileId", job.getUUID("file_id").toString())
              .put("kind", job.getString("kind")).put("personId", msg.getString("personId")));
        });
  }

  Future<JsonObject> cancel(JsonObject msg) {
    if (!Ids.isUuid(msg.getString("jobId"))) {
      return Future.failedFuture(PipelineErrors.jobNotFound().toException());
    }
    UUID id = UUID.fromString(msg.getString("jobId"));
    return pool.preparedQuery(PipelineSql.CANCEL).execute(Tuple.of(id, msg.getString("error"))).compose(rows -> {
      if (rows.size() > 0) {
        Row r = rows.iterator().next();
        events.deleteOrphan(r.getString("previous"));
        events.updated(id.toString(), r.getLong("seq"), "cancelled", null);
      }
      return jobView(id);
    });
  }

  Future<JsonObject> job(JsonObject msg) {
    if (!Ids.isUuid(msg.getString("jobId"))) {
      return Future.failedFuture(PipelineErrors.jobNotFound().toException());
    }
    return jobView(UUID.fromString(msg.getString("jobId")));
  }

  private Future<JsonObject> jobView(UUID id) {
    return pool.preparedQuery(PipelineSql.JOB_BY_ID).execute(Tuple.of(id, leaseSeconds))
        .compose(rows -> rows.size() == 0
            ? Future.failedFuture(PipelineErrors.jobNotFound().toException())
            : Future.succeededFuture(jobJson(rows.iterator().next())));
  }

  Future<JsonObject> jobsOfFile(JsonObject msg) {
    UUID fileId = UUID.fromString(msg.getString("fileId"));
    return pool.preparedQuery(PipelineSql.JOBS_OF_FILE).execute(Tuple.of(fileId, leaseSeconds)).map(rows -> {
      JsonArray jobs = new JsonArray();
      rows.forEach(r -> jobs.add(jobJson(r)));
      return new JsonObject().put("jobs", jobs);
    });
  }

  static JsonObject jobJson(Row r) {
    JobStatus status = JobStatus.parse(r.getString("status"));
    UUID version = r.getUUID("version_id");
    return new JsonObject().put("id", r.getUUID("id").toString()).put("fileId", r.getUUID("file_id").toString())
        .put("kind", r.getString("kind")).put("status", status.wire()).put("state", status.state(r.getBoolean("live")))
        .put("priority", r.getInteger("priority"))
        .put("progress", r.getInteger("progress")).put("attempts", r.getInteger("attempts"))
        .put("maxAttempts", r.getInteger("max_attempts")).put("error", r.getString("error"))
        .put("seq", r.getLong("seq"))
        .put("versionId", version == null ? null : version.toString())
        .put("createdAt", Json.iso(r.getOffsetDateTime("created_at")))
        .put("updatedAt", Json.iso(r.getOffsetDateTime("updated_at")))
        .put("finishedAt", Json.iso(r.getOffsetDateTime("finished_at")));
  }

  /** {fileId?} → every kind (with liveness), or those that apply to the file. */
  Future<JsonObject> kinds(JsonObject msg) {
    String fileId = msg.getString("fileId");
    Future<String> mime = fileId == null ? Future.succeededFuture(null)
        : !Ids.isUuid(fileId) ? Future.failedFuture(PipelineErrors.fileNotFound().toException())
            : pool.preparedQuery(PipelineSql.FILE).execute(Tuple.of(UUID.fromString(fileId)))
                .compose(rows -> rows.size() == 0
                    ? Future.failedFuture(PipelineErrors.fileNotFound().toException())
                    : Future.succeededFuture(rows.iterator().next().getString("mime_type")));
    return mime.compose(type -> pool.preparedQuery(PipelineSql.KINDS).execute(Tuple.of(leaseSeconds)).map(rows -> {
      JsonArray out = new JsonArray();
      for (Row r : rows) {
        String[] accepts = r.getArrayOfStrings("accepts");
        List<String> acceptList = accepts == null ? null : Arrays.asList(accepts);
        if (type == null || Kinds.applies(acceptList, type)) {
          out.add(new JsonObject().put("name", r.getString("name"))
              .put("accepts", acceptList == null ? null : new JsonArray(acceptList))
              .put("builtin", r.getBoolean("builtin")).put("live", r.getBoolean("live"))
              .put("workerSeenAt", r.getOffsetDateTime("worker_seen_at") == null ? null
                  : Json.iso(r.getOffsetDateTime("worker_seen_at"))));
        }
      }
      return new JsonObject().put("kinds", out);
    }));
  }

  Future<JsonObject> status(JsonObject msg) {
    return pool.preparedQuery(PipelineSql.LIVE_WORKERS).execute(Tuple.of(leaseSeconds))
        .compose(live -> pool.query(PipelineSql.STATUS_COUNTS).execute().map(rows -> {
          JsonObject byStatus = new JsonObject();
          for (JobStatus s : JobStatus.values()) {
            byStatus.put(s.wire(), 0L);
          }
          rows.forEach(r -> byStatus.put(r.getString(0), r.getLong(1)));
          return new JsonObject().put("liveWorkers", live.iterator().next().getLong(0))
              .put("queuedJobs", byStatus.getLong("queued")).put("jobsByStatus", byStatus);
        }));
  }

}
