package io.shotstash.http.graphql;

import graphql.schema.DataFetcher;
import graphql.schema.DataFetchingEnvironment;
import io.shotstash.auth.Actor;
import io.shotstash.bus.ApiError;
import io.shotstash.http.StorableText;
import io.shotstash.media.LibraryVerticle.Actions;
import io.shotstash.pipeline.QueueActions;
import io.shotstash.pipeline.contract.JobStatus;
import io.shotstash.publicdata.records.AccountLevel;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.CompletionStage;

/** The person, folders and files: each field asks {@code media.library} (or the queue, for a file's jobs). */
final class LibraryFetchers {
  private static final int NAME_MAX = 255;

  private final Bus bus;

  LibraryFetchers(Bus bus) {
    this.bus = bus;
  }

  // ---- Query ----

  DataFetcher<JsonObject> me() {
    return env -> {
      Actor.Member m = GraphqlAuth.member(env);
      return new JsonObject().put("id", m.personId()).put("slug", m.slug()).put("fullName", m.fullName())
          .put("accountLevel", m.level().wire());
    };
  }

  DataFetcher<CompletionStage<JsonArray>> folders() {
    return env -> {
      GraphqlAuth.member(env);
      return bus.library(Actions.FOLDERS, new JsonObject()).map(r -> r.getJsonArray("folders")).toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonObject>> folder() {
    return env -> {
      GraphqlAuth.member(env);
      return folder(env.getArgument("id")).toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonObject>> file() {
    return env -> {
      GraphqlAuth.member(env);
      return bus.library(Actions.FILE, new JsonObject().put("id", env.<String>getArgument("id"))).toCompletionStage();
    };
  }

  // ---- Folder and File fields ----

  /** Folder.files: already there when the folder came from {@code folder}, else asked for. */
  DataFetcher<Object> folderFiles() {
    return env -> {
      JsonObject folder = env.getSource();
      if (folder.containsKey("files")) {
        return folder.getJsonArray("files");
      }
      return folder(folder.getString("id")).map(f -> f.getJsonArray("files")).toCompletionStage();
    };
  }

  DataFetcher<String> fileDownloadUrl() {
    return env -> "/media/o/" + env.<JsonObject>getSource().getString("id");
  }

  DataFetcher<Object> fileVersions() {
    return env -> {
      JsonObject file = env.getSource();
      if (file.containsKey("processedVersions")) {
        return file.getJsonArray("processedVersions");
      }
      return bus.library(Actions.FILE, new JsonObject().put("id", file.getString("id")).put("includeTrashed", true))
          .map(f -> f.getJsonArray("processedVersions")).toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonArray>> fileJobs() {
    return env -> jobsOf(env).toCompletionStage();
  }

  /** The newest unfinished job (the queue lists a file's jobs newest first). */
  DataFetcher<CompletionStage<JsonObject>> fileCurrentJob() {
    return env -> jobsOf(env).map(jobs -> {
      for (int i = 0; i < jobs.size(); i++) {
        JsonObject job = jobs.getJsonObject(i);
        if (!JobStatus.parse(job.getString("status")).isFinal()) {
          return job;
        }
      }
      return (JsonObject) null;
    }).toCompletionStage();
  }

  /** A file's jobs, asked once per operation even when both jobs and currentJob are selected. */
  private Future<JsonArray> jobsOf(DataFetchingEnvironment env) {
    String fileId = env.<JsonObject>getSource().getString("id");
    return env.getGraphQlContext().computeIfAbsent("jobs-of-file:" + fileId,
        k -> bus.queue(QueueActions.JOBS_OF_FILE, new JsonObject().put("fileId", fileId))
            .map(r -> r.getJsonArray("jobs")));
  }

  // ---- Mutation ----

  DataFetcher<CompletionStage<JsonObject>> createFolder() {
    return env -> {
      Actor.Member m = GraphqlAuth.atLeast(env, AccountLevel.EDITOR);
      String name = folderName(env.getArgument("name"));
      JsonObject msg = new JsonObject().put("name", name).put("personId", m.personId());
      String parentId = env.getArgument("parentId");
      if (parentId != null) {
        msg.put("parentId", parentId);
      }
      return bus.library(Actions.CREATE_FOLDER, msg).map(f -> f.put("files", new JsonArray())).toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonObject>> trashFile() {
    return env -> {
      GraphqlAuth.atLeast(env, AccountLevel.EDITOR);
      return bus.library(Actions.TRASH_FILE, new JsonObject().put("id", env.<String>getArgument("id")))
          .toCompletionStage();
    };
  }

  DataFetcher<CompletionStage<JsonObject>> restoreFile() {
    return env -> {
      GraphqlAuth.atLeast(env, AccountLevel.EDITOR);
      return bus.library(Actions.RESTORE_FILE, new JsonObject().put("id", env.<String>getArgument("id")))
          .toCompletionStage();
    };
  }

  /** NOT_FOUND for a folder that is missing or already in the Trash; true once trashed. */
  DataFetcher<CompletionStage<Boolean>> trashFolder() {
    return env -> {
      GraphqlAuth.atLeast(env, AccountLevel.EDITOR);
      String id = env.getArgument("id");
      return bus.library(Actions.FOLDER, new JsonObject().put("id", id))
          .compose(f -> bus.library(Actions.TRASH_FOLDER, new JsonObject().put("id", id)))
          .map(r -> Boolean.TRUE).toCompletionStage();
    };
  }

  private Future<JsonObject> folder(String id) {
    return bus.library(Actions.FOLDER, new JsonObject().put("id", id));
  }

  /** Trimmed, 1 to 255 characters, no control characters or lone surrogates; else BAD_USER_INPUT. */
  static String folderName(String raw) {
    String name = raw == null ? "" : raw.strip();
    if (name.isEmpty() || name.length() > NAME_MAX || name.chars().anyMatch(Character::isISOControl)
        || !StorableText.storable(name)) { // a lone surrogate would be stored as '?'
      throw ApiError.validation("name", "must be 1 to " + NAME_MAX + " characters without control characters")
          .toException();
    }
    return name;
  }
}
