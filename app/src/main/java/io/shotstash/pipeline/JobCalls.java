package io.shotstash.pipeline;

import io.shotstash.bus.ApiError;
import io.shotstash.metrics.DomainMetrics;
import io.shotstash.pipeline.Batcher.Answered;
import io.shotstash.pipeline.Batcher.Outcome;
import io.shotstash.pipeline.Batcher.Refused;
import io.shotstash.pipeline.JobCall.Complete;
import io.shotstash.pipeline.JobCall.Fail;
import io.shotstash.pipeline.JobCall.Output;
import io.shotstash.pipeline.JobCall.Progress;
import io.shotstash.pipeline.contract.PipelineErrors;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * The calls a claim holder makes about its job (input, progress, the start of an upload, the
 * output, complete, release, fail), each kind batched ({@link Batcher}): the calls that arrive
 * while one statement is in flight go out together as the next, one round trip and one commit for
 * all of them. Every call still gets the answer it would get alone: the per-call rules run per
 * row inside the statement ({@code pipeline_*_batch}, migration V8) and a refused row gets its own
 * refusal. A reply is sent only after the commit that makes it true (the statement's own).
 *
 * <p>Pools: {@code durable} waits for the WAL flush; {@code asyncCommits} carries the writes a
 * crash of PostgreSQL may undo without harm (progress, lease moves), see {@link JobQueueVerticle}.
 * One instance per job-queue instance, used on its event loop only.
 */
final class JobCalls {
  /** The most calls one statement carries. */
  static final int MAX_BATCH = 256;

  private final Pool durable;
  private final Pool asyncCommits;
  private final JobEvents events;
  // each batch names a job at most once (a second call about it waits for the next batch)
  private final Batcher<JobCall, JsonObject> input = new Batcher<>("input", MAX_BATCH, JobCall::job, this::inputBatch);
  private final Batcher<JobCall, JsonObject> touch =
      new Batcher<>("upload start", MAX_BATCH, JobCall::job, this::touchBatch);
  private final Batcher<Progress, JsonObject> progress =
      new Batcher<>("progress", MAX_BATCH, p -> p.call().job(), this::progressBatch);
  private final Batcher<Output, JsonObject> output =
      new Batcher<>("output", MAX_BATCH, o -> o.call().job(), this::outputBatch);
  private final Batcher<Complete, JsonObject> complete =
      new Batcher<>("complete", MAX_BATCH, c -> c.call().job(), this::completeBatch);
  private final Batcher<JobCall, JsonObject> release =
      new Batcher<>("release", MAX_BATCH, JobCall::job, this::releaseBatch);
  private final Batcher<Fail, JsonObject> fail = new Batcher<>("fail", MAX_BATCH, f -> f.call().job(), this::failBatch);

  JobCalls(Pool durable, Pool asyncCommits, JobEvents events) {
    this.durable = durable;
    this.asyncCommits = asyncCommits;
    this.events = events;
  }

  /** → {storageKey, name, mimeType, size}; FILE_NOT_FOUND when the file is in the Trash. */
  Future<JsonObject> input(JobCall call) {
    return input.submit(call);
  }

  /** The claim holds → {}; the lease moves (an upload starts). */
  Future<JsonObject> beginOutput(JobCall call) {
    return touch.submit(call);
  }

  /** → {status, progress, seq}. */
  Future<JsonObject> progress(Progress call) {
    return progress.submit(call);
  }

  /** → {versionId, size, mimeType}; a refused output's bytes are deleted before the answer. */
  Future<JsonObject> recordOutput(Output call) {
    return output.submit(call);
  }

  /** → {status: done, versionId}. */
  Future<JsonObject> complete(Complete call) {
    return complete.submit(call);
  }

  /** → {status: queued, attempts}. */
  Future<JsonObject> release(JobCall call) {
    return release.submit(call);
  }

  /** → {status, attempts, maxAttempts}. */
  Future<JsonObject> fail(Fail call) {
    return fail.submit(call);
  }

  /** Completes waiting for the statement in flight (tests). */
  int completesWaiting() {
    return complete.waiting();
  }

  /** Complete statements sent so far (tests). */
  long completeBatches() {
    return complete.batches();
  }

  // ---- the statements ----

  private Future<List<Outcome<JsonObject>>> inputBatch(List<JobCall> calls) {
    return asyncCommits.preparedQuery(PipelineSql.INPUT_BATCH).execute(holders(calls))
        .map(rows -> perCall(rows, calls.size(), r -> {
          if (!"ok".equals(r.getString("outcome"))) {
            return refused(r.getString("outcome"));
          }
          if (r.getBoolean("trashed")) {
            return new Refused<>(PipelineErrors.fileNotFound());
          }
          return new Answered<>(new JsonObject().put("storageKey", r.getString("storage_key"))
              .put("name", r.getString("name")).put("mimeType", r.getString("mime_type"))
              .put("size", r.getLong("size")));
        }));
  }

  private Future<List<Outcome<JsonObject>>> touchBatch(List<JobCall> calls) {
    return asyncCommits.preparedQuery(PipelineSql.TOUCH_BATCH).execute(holders(calls))
        .map(rows -> perCall(rows, calls.size(), r -> "ok".equals(r.getString("outcome"))
            ? new Answered<>(new JsonObject()) : refused(r.getString("outcome"))));
  }

  private Future<List<Outcome<JsonObject>>> progressBatch(List<Progress> calls) {
    List<JobCall> holders = calls.stream().map(Progress::call).toList();
    Tuple t = holders(holders).addValue(calls.stream().map(Progress::progress).toArray(Integer[]::new));
    return asyncCommits.preparedQuery(PipelineSql.PROGRESS_BATCH).execute(t)
        .map(rows -> perCall(rows, calls.size(), r -> {
          if (!"ok".equals(r.getString("outcome"))) {
            return refused(r.getString("outcome"));
          }
          UUID job = holders.get(r.getInteger("n") - 1).job();
          events.updated(job.toString(), r.getLong("seq"), r.getString("status"), r.getInteger("progress"));
          return new Answered<>(new JsonObject().put("status", r.getString("status"))
              .put("progress", r.getInteger("progress")).put("seq", r.getLong("seq")));
        }));
  }

  private Future<List<Outcome<JsonObject>>> outputBatch(List<Output> calls) {
    return durable.preparedQuery(PipelineSql.RECORD_OUTPUT_BATCH)
        .execute(outputs(calls.stream().map(Output::call).toList(), calls))
        .compose(rows -> {
          List<Outcome<JsonObject>> out = perCall(rows, calls.size(), r -> {
            Output o = calls.get(r.getInteger("n") - 1);
            if (!"recorded".equals(r.getString("outcome"))) {
              return refused(r.getString("outcome"));
            }
            // the same output recorded again (a resumable output's finish repeated after a crash)
            // replaces nothing: its bytes are not an orphan
            if (!o.storageKey().equals(r.getString("previous"))) {
              events.deleteOrphan(r.getString("previous"));
            }
            events.seqMoved(o.call().job());
            return new Answered<>(new JsonObject().put("versionId", o.versionId().toString())
                .put("size", o.size()).put("mimeType", o.mimeType()));
          });
          // a refused output's bytes go before its caller hears the refusal
          return deleteRefusedOutputs(calls, out).map(out);
        });
  }

  private Future<List<Outcome<JsonObject>>> completeBatch(List<Complete> calls) {
    List<JobCall> holders = calls.stream().map(Complete::call).toList();
    List<Output> outputs = calls.stream().map(Complete::output).toList();
    return durable.preparedQuery(PipelineSql.COMPLETE_BATCH).execute(outputs(holders, outputs)).compose(rows -> {
      List<Outcome<JsonObject>> out = perCall(rows, calls.size(), r -> {
        UUID job = holders.get(r.getInteger("n") - 1).job();
        events.deleteOrphan(r.getString("previous"));
        return switch (r.getString("outcome")) {
          case "done" -> {
            events.updated(job.toString(), r.getLong("seq"), "done", 100);
            DomainMetrics.completed(r.getString("kind"), r.getDouble("run_seconds"));
            yield new Answered<>(
                new JsonObject().put("status", "done").put("versionId", r.getUUID("version_id").toString()));
          }
          case "output_dropped" -> {
            // the row no longer points at the output: now it can go
            events.deleteOrphan(r.getString("drop_key"));
            events.seqMoved(job);
            yield new Refused<>(PipelineErrors.fileGone());
          }
          case "file_gone" -> new Refused<>(PipelineErrors.fileGone());
          case "output_missing" -> new Refused<>(PipelineErrors.outputMissing());
          default -> refused(r.getString("outcome"));
        };
      });
      return deleteRefusedOutputs(outputs, out).map(out);
    });
  }

  private Future<List<Outcome<JsonObject>>> releaseBatch(List<JobCall> calls) {
    return durable.preparedQuery(PipelineSql.RELEASE_BATCH).execute(holders(calls))
        .map(rows -> perCall(rows, calls.size(), r -> {
          if (!"ok".equals(r.getString("outcome"))) {
            return refused(r.getString("outcome"));
          }
          events.deleteOrphan(r.getString("previous"));
          events.updated(calls.get(r.getInteger("n") - 1).job().toString(), r.getLong("seq"), "queued", 0);
          return new Answered<>(new JsonObject().put("status", "queued").put("attempts", r.getInteger("attempts")));
        }));
  }

  private Future<List<Outcome<JsonObject>>> failBatch(List<Fail> calls) {
    List<JobCall> holders = calls.stream().map(Fail::call).toList();
    Tuple t = holders(holders).addValue(calls.stream().map(Fail::retryable).toArray(Boolean[]::new))
        .addValue(calls.stream().map(Fail::error).toArray(String[]::new));
    return durable.preparedQuery(PipelineSql.FAIL_BATCH).execute(t).map(rows -> perCall(rows, calls.size(), r -> {
      if (!"ok".equals(r.getString("outcome"))) {
        return refused(r.getString("outcome"));
      }
      events.deleteOrphan(r.getString("previous"));
      events.updated(holders.get(r.getInteger("n") - 1).job().toString(), r.getLong("seq"), r.getString("status"), 0);
      DomainMetrics.failed(r.getString("kind"), "queued".equals(r.getString("status")));
      return new Answered<>(new JsonObject().put("status", r.getString("status"))
          .put("attempts", r.getInteger("attempts")).put("maxAttempts", r.getInteger("max_attempts")));
    }));
  }

  // ---- helpers ----

  /** ($1 jobs, $2 workers, $3 claim-token hashes). */
  private static Tuple holders(List<JobCall> calls) {
    return Tuple.of(JobCall.jobs(calls), JobCall.workers(calls), JobCall.tokens(calls));
  }

  /** The holders, then ($4 version ids, $5 storage keys, $6 types, $7 extensions, $8 sizes); null where a call has no output. */
  private static Tuple outputs(List<JobCall> holders, List<Output> outputs) {
    int n = outputs.size();
    UUID[] versions = new UUID[n];
    String[] keys = new String[n];
    String[] types = new String[n];
    String[] exts = new String[n];
    Long[] sizes = new Long[n];
    for (int i = 0; i < n; i++) {
      Output o = outputs.get(i);
      if (o != null) {
        versions[i] = o.versionId();
        keys[i] = o.storageKey();
        types[i] = o.mimeType();
        exts[i] = o.ext();
        sizes[i] = o.size();
      }
    }
    return holders(holders).addValue(versions).addValue(keys).addValue(types).addValue(exts).addValue(sizes);
  }

  /** One outcome per call, placed by the row's call number {@code n}; a call without a row is a fault. */
  static List<Outcome<JsonObject>> perCall(RowSet<Row> rows, int calls, Function<Row, Outcome<JsonObject>> each) {
    List<Outcome<JsonObject>> out = new ArrayList<>(Collections.nCopies(calls, null));
    for (Row r : rows) {
      out.set(r.getInteger("n") - 1, each.apply(r));
    }
    if (out.contains(null)) {
      throw new IllegalStateException("a batch statement answered " + rows.size() + " rows for " + calls + " calls");
    }
    return out;
  }

  /**
   * Deletes the stored bytes of every refused call that brought an output; the answers wait for it.
   * (A complete whose output was recorded, then dropped because the file went to the Trash, names
   * the same key as drop_key: deleting it twice is harmless.)
   */
  private Future<Void> deleteRefusedOutputs(List<Output> outputs, List<Outcome<JsonObject>> outcomes) {
    List<Future<Void>> deletes = new ArrayList<>();
    for (int i = 0; i < outputs.size(); i++) {
      if (outputs.get(i) != null && outcomes.get(i) instanceof Refused<JsonObject>) {
        deletes.add(events.storage().delete(outputs.get(i).storageKey()).otherwiseEmpty());
      }
    }
    return deletes.isEmpty() ? Future.succeededFuture() : Future.join(deletes).mapEmpty();
  }

  /** The refusal an outcome of V8's functions names. */
  static Refused<JsonObject> refused(String outcome) {
    ApiError error = switch (outcome) {
      case "job_not_found" -> PipelineErrors.jobNotFound();
      case "job_terminal" -> PipelineErrors.jobTerminal();
      case "claim_stale" -> PipelineErrors.claimStale();
      default -> throw new IllegalStateException("a batch statement answered the outcome " + outcome);
    };
    return new Refused<>(error);
  }
}
