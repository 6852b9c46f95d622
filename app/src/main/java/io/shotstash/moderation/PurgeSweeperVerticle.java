package io.shotstash.moderation;

import io.shotstash.agents.Grants;
import io.shotstash.auth.Actor;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.SweepVerticle;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.write.PublicDataClient;
import io.shotstash.publicdata.write.WriteCommand;
import io.shotstash.purge.AccountVotes;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The scheduled spam purge: every {@code SHOTSTASH_PURGE_SWEEP_SECONDS}, each member whose
 * purgeAfter has passed is purged by the system (by = scheduled). Candidates are found here from
 * this node's state; the git writer checks each again under its lock, so sweeps on several nodes
 * purge a member once. {@code moderation.purge-sweep} runs one now and answers the slugs purged.
 */
public final class PurgeSweeperVerticle extends SweepVerticle {
  private final Pool pool;
  private final PublicStateHolder holder;
  private final PublicDataClient writes;

  public PurgeSweeperVerticle(Pool pool, PublicStateHolder holder, PublicDataClient writes, int sweepSeconds) {
    super(Addresses.MODERATION_PURGE_SWEEP, sweepSeconds);
    this.pool = pool;
    this.holder = holder;
    this.writes = writes;
  }

  /** Answers {@code {purged: [slugs]}}. */
  @Override
  protected Future<JsonObject> sweep(JsonObject options) {
    return purgeDue().map(slugs -> new JsonObject().put("purged", new JsonArray(slugs)));
  }

  private Future<List<String>> purgeDue() {
    return Grants.agentsWithActiveGrant(pool).compose(ids -> {
      PublicState state = holder.current();
      Set<String> active = new HashSet<>();
      ids.forEach(id -> state.personById(id).ifPresent(p -> active.add(p.slug())));
      Instant now = Instant.now();
      List<String> due = new ArrayList<>();
      for (Person p : state.all(Sheet.PEOPLE, Person.class)) {
        if (p.isDeactivated() && !p.isAgentAccount()) {
          Instant after = AccountVotes.of(state, p).purgeAfter(active);
          if (after != null && !after.isAfter(now)) {
            due.add(p.slug());
          }
        }
      }
      Future<List<String>> chain = Future.succeededFuture(new ArrayList<>());
      for (String slug : due) {
        chain = chain.compose(done -> writes
            .write(new WriteCommand(ModerationWrites.SCHEDULED_PURGE, Actor.SYSTEM, "POST",
                "/api/admin/members/" + slug + "/purge", new JsonObject().put("slug", slug)))
            .map(r -> {
              if (r.getBoolean("purged", false)) {
                done.add(slug);
              }
              return done;
            }));
      }
      return chain;
    });
  }
}
