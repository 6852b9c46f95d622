package io.shotstash.moderation;

import io.shotstash.people.PrivateSql;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.UUID;

/**
 * Re-probes GitHub facts older than a day for the rows of one roster page, at most five at a
 * time, within the request: {@code GET {api}/user/{id}}. 404 keeps the old facts with status
 * gone; any other failure keeps the old record unchanged.
 */
public final class GitHubProbe {
  static final Duration STALE = Duration.ofDays(1);
  static final int CONCURRENCY = 5;

  private final WebClient client;
  private final String apiUrl;
  private final Pool pool;

  public GitHubProbe(Vertx vertx, String apiUrl, Pool pool) {
    this.client = WebClient.create(vertx, new WebClientOptions().setConnectTimeout(5000).setIdleTimeout(10)
        .setUserAgent("Shotstash"));
    this.apiUrl = apiUrl;
    this.pool = pool;
  }

  /** One member to probe: their GitHub id and current facts (may be null). */
  public record Target(String personId, long githubUserId, JsonObject facts) {}

  public static boolean stale(JsonObject facts, Instant now) {
    if (facts == null || facts.getString("checkedAt") == null) {
      return true;
    }
    try {
      return Instant.parse(facts.getString("checkedAt")).isBefore(now.minus(STALE));
    } catch (RuntimeException e) {
      return true;
    }
  }

  /** Probes the targets five at a time; returns person id → new facts (only for those that changed). */
  public Future<java.util.Map<String, JsonObject>> probe(List<Target> targets) {
    java.util.Map<String, JsonObject> results = new java.util.concurrent.ConcurrentHashMap<>();
    Deque<Target> queue = new ArrayDeque<>(targets);
    List<Future<Void>> lanes = new ArrayList<>();
    for (int i = 0; i < Math.min(CONCURRENCY, targets.size()); i++) {
      lanes.add(lane(queue, results));
    }
    return Future.join(lanes).transform(ar -> Future.succeededFuture(results));
  }

  private Future<Void> lane(Deque<Target> queue, java.util.Map<String, JsonObject> results) {
    Target t;
    synchronized (queue) {
      t = queue.poll();
    }
    if (t == null) {
      return Future.succeededFuture();
    }
    return one(t).onSuccess(facts -> {
      if (facts != null) {
        results.put(t.personId(), facts);
      }
    }).transform(ar -> lane(queue, results));
  }

  private Future<JsonObject> one(Target t) {
    String now = Instant.now().toString();
    return client.getAbs(apiUrl + "/user/" + t.githubUserId()).putHeader("Accept", "application/vnd.github+json").send()
        .compose(res -> {
          JsonObject old = t.facts() == null ? new JsonObject() : t.facts().copy();
          JsonObject facts;
          if (res.statusCode() == 404) {
            facts = old.put("status", "gone").put("checkedAt", now);
          } else if (res.statusCode() == 200) {
            JsonObject u = res.bodyAsJsonObject();
            facts =
                new JsonObject().put("login", u.getString("login")).put("accountCreatedAt", u.getString("created_at"))
                    .put("publicRepos", u.getInteger("public_repos")).put("followers", u.getInteger("followers"))
                    .put("status", "ok").put("checkedAt", now);
          } else {
            return Future.succeededFuture(null); // keep the old record
          }
          return pool.preparedQuery(PrivateSql.UPDATE_GITHUB_FACTS)
              .execute(Tuple.of(UUID.fromString(t.personId()), facts)).map(facts);
        })
        .otherwise((JsonObject) null);
  }
}
