package io.shotstash.moderation;

import io.shotstash.agents.Grants;
import io.shotstash.bus.ActionDispatcher;
import io.shotstash.bus.Addresses;
import io.shotstash.bus.ApiError;
import io.shotstash.people.PersonView;
import io.shotstash.publicdata.PublicState;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.Sheet;
import io.shotstash.publicdata.records.Person;
import io.shotstash.publicdata.records.SpamPurge;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The moderation reads (address {@code moderation}): the roster, one member's detail, the
 * spam-purge log and the agents with their accuracy. Public facts come from this node's
 * {@link PublicState}; private ones (email, GitHub facts, sign-ins) from PostgreSQL through
 * {@link RosterFacts}, for the rows of the requested page only; {@link ModerationViews} builds the
 * JSON.
 */
public final class ModerationVerticle extends VerticleBase {

  /** Action header values. */
  public static final class Actions {
    private Actions() {}

    public static final String ROSTER = "roster";
    public static final String DETAIL = "detail";
    public static final String PURGES = "spam-purges";
    public static final String AGENTS = "agents";
  }

  private final Pool pool;
  private final PublicStateHolder holder;
  private final RosterFacts facts;
  private final String webUrl;
  private final String branch;

  public ModerationVerticle(Pool pool, PublicStateHolder holder, GitHubProbe probe, String dataRepoWebUrl,
      String branch) {
    this.pool = pool;
    this.holder = holder;
    this.facts = new RosterFacts(pool, probe);
    this.webUrl = dataRepoWebUrl;
    this.branch = branch;
  }

  @Override
  public Future<?> start() {
    return new ActionDispatcher(Addresses.MODERATION)
        .on(Actions.ROSTER, this::roster)
        .on(Actions.DETAIL, this::detail)
        .on(Actions.PURGES, this::purges)
        .on(Actions.AGENTS, this::agents)
        .register(vertx);
  }

  /** {query, agent} → {rows, page, perPage, totalItems}. */
  private Future<JsonObject> roster(JsonObject msg) {
    RosterQuery query = RosterQuery.fromJson(msg.getJsonObject("query"));
    boolean agent = msg.getBoolean("agent", false);
    PublicState state = holder.current();
    return Future.all(facts.index(state), facts.lastLogins("lastLoginAt".equals(query.sort())),
        Grants.agentsWithActiveGrant(pool)).compose(all -> {
          RosterIndex index = all.resultAt(0);
          Map<String, Instant> logins = all.resultAt(1);
          Set<String> activeAgents = slugs(state, all.resultAt(2));
          List<Person> matching = index.matching(state, query, agent, logins);
          return rows(state, page(matching, query.page(), query.perPage()), agent, activeAgents)
              .map(rows -> new JsonObject().put("rows", rows).put("page", query.page()).put("perPage", query.perPage())
                  .put("totalItems", matching.size()));
        });
  }

  /** {slug, agent} → the row plus footprint lists, votes, earlierVotes, earlierPurges. */
  private Future<JsonObject> detail(JsonObject msg) {
    PublicState state = holder.current();
    boolean agent = msg.getBoolean("agent", false);
    Person p = state.personBySlug(msg.getString("slug")).filter(x -> !x.isAgentAccount()).orElse(null);
    if (p == null) {
      return Future.failedFuture(ApiError.notFound().toException());
    }
    return Grants.agentsWithActiveGrant(pool).compose(active -> rows(state, List.of(p), agent, slugs(state, active)))
        .map(rows -> ModerationViews.detail(state, p, rows.getJsonObject(0), agent));
  }

  /** The rows of one page: private facts for those people only, re-probed on GitHub when stale. */
  private Future<JsonArray> rows(PublicState state, List<Person> page, boolean agent, Set<String> activeAgents) {
    Instant now = Instant.now();
    return facts.ofPage(page, now).map(found -> {
      JsonArray rows = new JsonArray();
      for (Person p : page) {
        rows.add(ModerationViews.row(state, p, found.getOrDefault(p.id(), new JsonObject()), agent, activeAgents, now));
      }
      return rows;
    });
  }

  /** {by?, slug?, since?, blocking?, page, perPage} → {items, totalItems}. */
  private Future<JsonObject> purges(JsonObject msg) {
    PublicState state = holder.current();
    PurgeLogQuery query = PurgeLogQuery.fromJson(msg);
    List<SpamPurge> all = query.matching(state);
    JsonArray items = new JsonArray();
    for (SpamPurge s : page(all, query.page(), query.perPage())) {
      items.add(ModerationViews.purgeLogItem(state, s, webUrl, branch));
    }
    return Future.succeededFuture(new JsonObject().put("items", items).put("totalItems", all.size()));
  }

  /** {} → {agents: [{person, grants, votesCast, overruled, purges}]}. */
  private Future<JsonObject> agents(JsonObject msg) {
    PublicState state = holder.current();
    List<Person> agents = state.all(Sheet.PEOPLE, Person.class).stream().filter(Person::isAgentAccount)
        .sorted(Comparator.comparing(Person::slug)).toList();
    Grants grants = new Grants(pool, holder);
    List<Future<JsonObject>> rows = new ArrayList<>();
    for (Person a : agents) {
      rows.add(grants.ofAgent(a.id())
          .map(g -> ModerationViews.accuracy(state, a).put("person", PersonView.staffJson(a, null)).put("grants", g)));
    }
    return Future.all(rows).map(all -> new JsonObject().put("agents", new JsonArray(all.list())));
  }

  private static Set<String> slugs(PublicState state, Set<String> personIds) {
    Set<String> out = new HashSet<>();
    personIds.forEach(id -> state.personById(id).ifPresent(p -> out.add(p.slug())));
    return out;
  }

  /** Page {@code page} (from 1) of {@code perPage} items; empty past the end. */
  private static <T> List<T> page(List<T> all, int page, int perPage) {
    int from = (int) Math.min((long) (page - 1) * perPage, all.size());
    return all.subList(from, Math.min(from + perPage, all.size()));
  }
}
