package io.shotstash.pipeline;

import io.shotstash.bus.ApiError;
import io.shotstash.bus.Json;
import io.shotstash.pipeline.contract.JobStatus;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.HashMap;
import java.util.Map;

/**
 * What the jobs dashboard reads (statements in {@link DashboardSql}): jobs by status, the last
 * hour's samples, and the jobs table. Who may read which is decided by the GraphQL fetchers.
 */
record DashboardQueries(Pool pool, int leaseSeconds) {
  /** {} → {counts: [{status, count}]}: every status, in the order a job goes through them, 0 included. */
  Future<JsonObject> counts(JsonObject msg) {
    return pool.query(DashboardSql.COUNTS_BY_STATUS).execute().map(rows -> {
      Map<String, Long> byStatus = new HashMap<>();
      rows.forEach(r -> byStatus.put(r.getString("status"), r.getLong("jobs")));
      JsonArray counts = new JsonArray();
      for (JobStatus s : JobStatus.values()) {
        counts.add(new JsonObject().put("status", s.wire()).put("count", byStatus.getOrDefault(s.wire(), 0L)));
      }
      return new JsonObject().put("counts", counts);
    });
  }

  /** {} → {minutes: [{minute, finished, failed, queueDepth, sampled, current}]}, oldest first (61 entries). */
  Future<JsonObject> lastHour(JsonObject msg) {
    return pool.query(DashboardSql.LAST_HOUR).execute().map(rows -> {
      JsonArray minutes = new JsonArray();
      for (Row r : rows) {
        minutes.add(new JsonObject().put("minute", Json.iso(r.getOffsetDateTime("minute")))
            .put("finished", r.getInteger("finished")).put("failed", r.getInteger("failed"))
            .put("queueDepth", r.getInteger("queue_depth")).put("sampled", r.getBoolean("sampled"))
            .put("current", r.getBoolean("current")));
      }
      return new JsonObject().put("minutes", minutes);
    });
  }

  /**
   * {status?, kind?, worker?, fileName?, page?, perPage?} → {jobs: [{job, fileName, fileTrashed,
   * workerName}], page, perPage, total}; a bad filter is 422 validation_failed naming the fields.
   */
  Future<JsonObject> jobs(JsonObject msg) {
    JobListFilter filter = JobListFilter.of(msg.getString("status"), msg.getString("kind"), msg.getString("worker"),
        msg.getString("fileName"), msg.getInteger("page"), msg.getInteger("perPage"));
    Map<String, String> problems = filter.problems();
    if (!problems.isEmpty()) {
      return Future.failedFuture(ApiError.validation(problems).toException());
    }
    Tuple filters = Tuple.of(filter.status(), filter.kind(), filter.worker(), filter.fileNameLike());
    Tuple page = Tuple.of(filter.status(), filter.kind(), filter.worker(), filter.fileNameLike(), filter.perPage(),
        filter.offset(), leaseSeconds);
    Future<Long> total = pool.preparedQuery(DashboardSql.JOBS_COUNT).execute(filters)
        .map(rows -> rows.iterator().next().getLong(0));
    Future<JsonArray> jobs = pool.preparedQuery(DashboardSql.JOBS_PAGE).execute(page).map(rows -> {
      JsonArray out = new JsonArray();
      for (Row r : rows) {
        out.add(new JsonObject().put("job", JobQueries.jobJson(r)).put("fileName", r.getString("file_name"))
            .put("fileTrashed", r.getBoolean("file_trashed")).put("workerName", r.getString("worker_name")));
      }
      return out;
    });
    return Future.all(total, jobs).map(all -> new JsonObject().put("jobs", jobs.result())
        .put("page", filter.page()).put("perPage", filter.perPage()).put("total", total.result()));
  }
}
