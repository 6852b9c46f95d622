package io.shotstash.pipeline;

import io.shotstash.auth.Tokens;
import io.shotstash.metrics.DomainMetrics;
import io.shotstash.pipeline.Batcher.Answered;
import io.shotstash.pipeline.Batcher.Outcome;
import io.shotstash.pipeline.Batcher.Refused;
import io.shotstash.pipeline.contract.JobStatus;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;

/**
 * {@code jobs/next}, batched: the claims that arrive while one claim statement is in flight go out
 * together, and one statement per set of kinds ({@link PipelineSql#CLAIM_BATCH}) takes as many jobs as
 * it has callers, in claim order, and hands one to each. A caller only ever gets a job of its own
 * kinds (callers are grouped by their kinds), no job goes to two callers (one statement numbers its
 * jobs; two statements skip each other's locked rows), and a caller that finds none hears {}.
 *
 * <p>A claim whose caller went away before hearing it (an HTTP worker that hung up, an event-bus
 * request that timed out) is not given back: the job stays claimed by that worker, under the
 * contract's rules, until its lease runs out and the sweeper queues it again (or the worker's next
 * heartbeat, which does not list it, tells it the job is lost). Nothing is handed twice.
 *
 * <p>An idle poll never reaches PostgreSQL: {@link QueueSignal} answers it. One instance per
 * job-queue instance, used on its event loop only.
 */
final class Claims {
  /**
   * A caller of {@code jobs/next}: the worker and the kinds it runs; {@code withStorageKey}: an
   * in-process worker, which reads the input from storage itself.
   */
  record Next(UUID worker, List<String> kinds, boolean withStorageKey) {}

  private final Pool asyncCommits;
  private final Pool pool;
  private final QueueSignal signal;
  private final JobEvents events;
  private final Batcher<Next, JsonObject> batcher = new Batcher<>("claim", JobCalls.MAX_BATCH, this::claimBatch);

  Claims(Pool asyncCommits, Pool pool, QueueSignal signal, JobEvents events) {
    this.asyncCommits = asyncCommits;
    this.pool = pool;
    this.signal = signal;
    this.events = events;
  }

  /** → {job} or {} when nothing is claimable for the caller's kinds. */
  Future<JsonObject> next(Next call) {
    if (!signal.mightHaveWork(call.kinds(), System.currentTimeMillis())) {
      return Future.succeededFuture(new JsonObject()); // nothing claimable: PostgreSQL not asked
    }
    return batcher.submit(call);
  }

  /** One statement per set of kinds, all sent at once (each on its own connection). */
  private Future<List<Outcome<JsonObject>>> claimBatch(List<Next> calls) {
    Map<TreeSet<String>, List<Integer>> byKinds = new LinkedHashMap<>();
    for (int i = 0; i < calls.size(); i++) {
      byKinds.computeIfAbsent(new TreeSet<>(calls.get(i).kinds()), k -> new ArrayList<>()).add(i);
    }
    List<Outcome<JsonObject>> out = new ArrayList<>(Collections.nCopies(calls.size(), null));
    List<Future<Void>> groups = new ArrayList<>();
    byKinds.forEach((kinds, members) -> groups.add(claimGroup(kinds, members, calls, out)));
    return Future.all(groups).map(v -> out);
  }

  private Future<Void> claimGroup(TreeSet<String> kindSet, List<Integer> members, List<Next> calls,
      List<Outcome<JsonObject>> out) {
    String[] kinds = kindSet.toArray(String[]::new);
    Map<String, Long> versions = signal.versions(kindSet);
    UUID[] workers = new UUID[members.size()];
    Buffer[] hashes = new Buffer[members.size()];
    String[] tokens = new String[members.size()];
    for (int m = 0; m < members.size(); m++) {
      workers[m] = calls.get(members.get(m)).worker();
      tokens[m] = Tokens.random("");
      hashes[m] = Buffer.buffer(Tokens.sha256(tokens[m]));
    }
    return asyncCommits.preparedQuery(PipelineSql.CLAIM_BATCH).execute(Tuple.of(kinds, workers, hashes))
        .<Void>compose(rows -> {
          for (Row r : rows) {
            int m = r.getLong("n").intValue() - 1;
            String jobId = r.getUUID("id").toString();
            events.updated(jobId, r.getLong("seq"), JobStatus.CLAIMED.wire(), 0);
            DomainMetrics.claimed(r.getString("kind"), r.getDouble("waited_seconds"));
            JsonObject reply = jobJson(r, tokens[m]);
            if (calls.get(members.get(m)).withStorageKey()) {
              reply.put("storageKey", r.getString("storage_key")); // what an INPUT would read, just after the claim
            }
            out.set(members.get(m), new Answered<>(reply));
          }
          JsonObject none = new JsonObject();
          for (Integer i : members) {
            if (out.get(i) == null) {
              out.set(i, new Answered<>(none));
            }
          }
          // the claims are committed: whatever learning fails, they are answered
          return rows.size() < members.size() ? learnEmpty(kinds, versions).otherwiseEmpty() : Future.succeededFuture();
        }).recover(err -> {
          // this group's statement changed nothing; the other groups' claims stand and are answered
          Refused<JsonObject> retry = new Refused<>(Batcher.retryable("claim", members.size(), err));
          members.forEach(i -> out.set(i, retry));
          return Future.succeededFuture();
        });
  }

  private static JsonObject jobJson(Row r, String claimToken) {
    String jobId = r.getUUID("id").toString();
    Object params = r.getValue("params");
    return new JsonObject().put("job", new JsonObject()
        .put("id", jobId).put("kind", r.getString("kind"))
        .put("params", params instanceof JsonObject p ? p : new JsonObject())
        .put("attempt", r.getInteger("attempts")).put("maxAttempts", r.getInteger("max_attempts"))
        .put("claimToken", claimToken)
        .put("input", new JsonObject().put("url", "/api/v1/pipeline/jobs/" + jobId + "/input")
            .put("name", r.getString("name")).put("mimeType", r.getString("mime_type"))
            .put("size", r.getLong("size"))));
  }

  /** Some callers found nothing: learn when these kinds next have claimable work, so idle polls stay off PostgreSQL. */
  private Future<Void> learnEmpty(String[] kinds, Map<String, Long> versions) {
    return pool.preparedQuery(PipelineSql.NEXT_RUN_AFTER).execute(Tuple.of((Object) kinds)).map(rows -> {
      Map<String, Long> earliest = new HashMap<>();
      rows.forEach(r -> earliest.put(r.getString("kind"), r.getOffsetDateTime("run_after").toInstant().toEpochMilli()));
      signal.learned(versions, earliest);
      return null;
    });
  }
}
