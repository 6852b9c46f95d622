package io.shotstash.http.graphql;

import graphql.schema.DataFetcher;
import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.bus.ApiError;
import io.shotstash.media.LibraryVerticle.Actions;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.pipeline.contract.Kinds;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.reactivestreams.Publisher;

/** Jobs, kinds and workers: each field asks {@code pipeline.queue} (and the library for outputs). */
final class PipelineFetchers {
  private final Bus bus;
  private final JobEvents events;

  PipelineFetchers(Bus bus, JobEvents events) {
    this.bus = bus;
    this.events = events;
  }

  // ---- Query ----

  DataFetcher<CompletionStage<JsonObject>> pipelineJob() {
    return env -> {
      GraphqlAuth.member(env);
      return job(env.getArgument("id")).toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonArray>> availableKinds() {
    return env -> {
      GraphqlAuth.member(env);
      return kinds(new JsonObject().put("fileId", env.<String>getArgument("fileId"))).toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonArray>> pipelineKinds() {
    return env -> {
      GraphqlAuth.member(env);
      return kinds(new JsonObject()).toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonArray>> pipelineWorkers() {
    return env -> {
      GraphqlAuth.atLeast(env, AccountLevel.ADMINISTRATOR);
      return workers().toCompletionStage();
    };
  }

  /** The jobs dashboard's figures: administrators, as the status figures and the workers. */
  DataFetcher<CompletionStage<JsonArray>> pipelineJobCounts() {
    return env -> {
      GraphqlAuth.atLeast(env, AccountLevel.ADMINISTRATOR);
      return bus.queue(QueueActions.JOB_COUNTS, new JsonObject()).map(r -> r.getJsonArray("counts"))
          .toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonArray>> pipelineMinutes() {
    return env -> {
      GraphqlAuth.atLeast(env, AccountLevel.ADMINISTRATOR);
      return bus.queue(QueueActions.LAST_HOUR, new JsonObject()).map(r -> r.getJsonArray("minutes"))
          .toCompletionStage();
    };
  }

  /** The jobs table: any signed-in person, who can already read every file's jobs. */
  DataFetcher<CompletionStage<JsonObject>> pipelineJobs() {
    return env -> {
      GraphqlAuth.member(env);
      JsonObject msg = new JsonObject().put("status", env.<String>getArgument("status"))
          .put("kind", env.<String>getArgument("kind")).put("worker", env.<String>getArgument("worker"))
          .put("fileName", env.<String>getArgument("fileName")).put("page", env.<Integer>getArgument("page"))
          .put("perPage", env.<Integer>getArgument("perPage"));
      return bus.queue(QueueActions.JOB_LIST, msg).toCompletionStage();
    };
  }

  /** PipelineJob.outputVersion: the processed version of a done job, read from its file. */
  DataFetcher<Object> outputVersion() {
    return env -> {
      JsonObject job = env.getSource();
      String versionId = job.getString("versionId");
      if (versionId == null) {
        return null;
      }
      return bus.library(Actions.FILE, new JsonObject().put("id", job.getString("fileId")).put("includeTrashed", true))
          .map(file -> {
            JsonArray versions = file.getJsonArray("processedVersions", new JsonArray());
            for (int i = 0; i < versions.size(); i++) {
              if (versionId.equals(versions.getJsonObject(i).getString("id"))) {
                return versions.getJsonObject(i);
              }
            }
            return (JsonObject) null;
          }).toCompletionStage();
    };
  }

  // ---- Mutation ----

  DataFetcher<CompletionStage<JsonObject>> enqueueJob() {
    return env -> {
      Actor.Member m = GraphqlAuth.atLeast(env, AccountLevel.EDITOR);
      return bus.queue(QueueActions.ENQUEUE, new JsonObject().put("fileId", env.<String>getArgument("fileId"))
          .put("kind", env.<String>getArgument("kind")).put("personId", m.personId())).toCompletionStage();
    };
  }

  /**
   * enqueueFolder: the permission of enqueueJob; a malformed id or kind name is BAD_USER_INPUT before
   * anything is read; the rest (FOLDER_NOT_FOUND, KIND_UNKNOWN) the job queue answers.
   */
  DataFetcher<CompletionStage<JsonObject>> enqueueFolder() {
    return env -> {
      Actor.Member m = GraphqlAuth.atLeast(env, AccountLevel.EDITOR);
      String folderId = env.getArgument("folderId");
      String kind = env.getArgument("kind");
      Map<String, String> bad = new LinkedHashMap<>();
      if (!Ids.isUuid(folderId)) {
        bad.put("folderId", "must be a folder id");
      }
      if (!Kinds.valid(kind)) {
        bad.put("kind", "must be a kind name: namespace/name, each 1 to 64 of a-z, 0-9, '.', '-' and '_'");
      }
      if (!bad.isEmpty()) {
        throw ApiError.validation(bad).toException();
      }
      return bus.queue(QueueActions.ENQUEUE_FOLDER, new JsonObject().put("folderId", folderId).put("kind", kind)
          .put("includeSubfolders", env.<Boolean>getArgument("includeSubfolders")).put("personId", m.personId()))
          .toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonObject>> retryJob() {
    return env -> {
      Actor.Member m = GraphqlAuth.atLeast(env, AccountLevel.EDITOR);
      return bus.queue(QueueActions.RETRY, new JsonObject().put("jobId", env.<String>getArgument("id"))
          .put("personId", m.personId())).toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonObject>> cancelJob() {
    return env -> {
      GraphqlAuth.atLeast(env, AccountLevel.EDITOR);
      return bus.queue(QueueActions.CANCEL, new JsonObject().put("jobId", env.<String>getArgument("id")))
          .toCompletionStage();
    };
  }

  /** Revokes the worker, then answers its view (NOT_FOUND for an unknown id). */
  DataFetcher<CompletionStage<JsonObject>> revokeWorker() {
    return env -> {
      GraphqlAuth.atLeast(env, AccountLevel.ADMINISTRATOR);
      String id = env.getArgument("id");
      return worker(id)
          .compose(w -> bus.queue(QueueActions.REVOKE, new JsonObject().put("workerId", id)))
          .compose(r -> worker(id)).toCompletionStage();
    };
  }

  // ---- Subscription ----

  /** jobUpdated: JOB_NOT_FOUND for an unknown job; over the WebSocket only. */
  DataFetcher<CompletionStage<Publisher<JsonObject>>> jobUpdated() {
    return env -> {
      GraphqlAuth.member(env);
      if (!GraphqlAuth.overWebSocket(env)) {
        throw ApiError.of(400, "BAD_REQUEST", "Subscriptions run over the WebSocket at /graphql (graphql-transport-ws)")
            .toException();
      }
      String id = env.getArgument("jobId");
      return job(id).<Publisher<JsonObject>>map(view -> new JobSubscription(bus, events, id, view)).toCompletionStage();
    };
  }

  // ---- helpers ----

  private Future<JsonObject> job(String id) {
    return bus.queue(QueueActions.JOB, new JsonObject().put("jobId", id));
  }

  private Future<JsonArray> kinds(JsonObject msg) {
    return bus.queue(QueueActions.KINDS, msg).map(r -> r.getJsonArray("kinds"));
  }

  private Future<JsonArray> workers() {
    return bus.queue(QueueActions.WORKERS, new JsonObject()).map(r -> r.getJsonArray("workers"));
  }

  private Future<JsonObject> worker(String id) {
    if (!Ids.isUuid(id)) {
      return Future.failedFuture(ApiError.notFound().toException());
    }
    return workers().compose(list -> {
      for (int i = 0; i < list.size(); i++) {
        if (id.equalsIgnoreCase(list.getJsonObject(i).getString("id"))) {
          return Future.succeededFuture(list.getJsonObject(i));
        }
      }
      return Future.failedFuture(ApiError.notFound().toException());
    });
  }
}
