package io.shotstash.agents;

import static io.shotstash.bus.Json.iso;

import io.shotstash.auth.Actor;
import io.shotstash.auth.Ids;
import io.shotstash.auth.Tokens;
import io.shotstash.publicdata.PublicStateHolder;
import io.shotstash.publicdata.records.Person;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Agent grants (docs/moderation-api.md → Agents and grants): scoped bearer tokens {@code cfpa_<43 chars>}
 * for agent accounts, stored only as SHA-256. An active grant is neither revoked nor expired; a
 * revoked grant's token answers as if it never existed. Statements are named below.
 */
public final class Grants {
  /** Every grant token starts so: how a bearer token is told from a session token (http/Callers). */
  public static final String TOKEN_PREFIX = "cfpa_";
  public static final Set<String> SCOPES = Set.of("moderation:read", "moderation:vote", "moderation:purge");

  static final String INSERT =
      "INSERT INTO agent_grants (id, agent_person_id, token_hash, scopes, created_by, expires_at) "
          + "VALUES ($1, $2, $3, $4, $5, $6) RETURNING id, scopes, created_at, expires_at";
  /** The grant a token names, if active. */
  static final String ACTIVE_BY_TOKEN =
      "SELECT id, agent_person_id, scopes FROM agent_grants WHERE token_hash = $1 AND revoked_at IS NULL "
          + "AND (expires_at IS NULL OR expires_at > now())";
  static final String REVOKE =
      "UPDATE agent_grants SET revoked_at = now() WHERE id = $1 AND agent_person_id = $2 AND revoked_at IS NULL RETURNING id";
  static final String OF_AGENT =
      "SELECT id, scopes, created_at, expires_at, revoked_at, "
          + "(revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())) AS active "
          + "FROM agent_grants WHERE agent_person_id = $1 ORDER BY created_at";
  static final String AGENTS_WITH_ACTIVE_GRANT =
      "SELECT DISTINCT agent_person_id FROM agent_grants WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())";

  private final Pool pool;
  private final PublicStateHolder state;

  public Grants(Pool pool, PublicStateHolder state) {
    this.pool = pool;
    this.state = state;
  }

  /** A new grant and its token, shown this once. */
  public Future<JsonObject> create(String agentPersonId, List<String> scopes, OffsetDateTime expiresAt,
      String createdBy) {
    String token = Tokens.random(TOKEN_PREFIX);
    return pool.preparedQuery(INSERT).execute(Tuple.tuple(Arrays.asList(UUID.fromString(Ids.uuid7()),
        UUID.fromString(agentPersonId), Buffer.buffer(Tokens.sha256(token)), scopes.toArray(String[]::new),
        UUID.fromString(createdBy), expiresAt)))
        .map(rows -> new JsonObject().put("grant", grantJson(rows.iterator().next(), true)).put("token", token));
  }

  public Future<Boolean> revoke(String agentPersonId, String grantId) {
    return pool.preparedQuery(REVOKE).execute(Tuple.of(UUID.fromString(grantId), UUID.fromString(agentPersonId)))
        .map(rows -> rows.size() > 0);
  }

  public Future<JsonArray> ofAgent(String agentPersonId) {
    return pool.preparedQuery(OF_AGENT).execute(Tuple.of(UUID.fromString(agentPersonId))).map(rows -> {
      JsonArray out = new JsonArray();
      rows.forEach(
          r -> out.add(grantJson(r, r.getBoolean("active")).put("revokedAt", iso(r.getOffsetDateTime("revoked_at")))));
      return out;
    });
  }

  /** The agent a bearer token names, if its grant is active and the agent account exists. */
  public Future<Optional<Actor.Agent>> resolve(String token) {
    return pool.preparedQuery(ACTIVE_BY_TOKEN).execute(Tuple.of(Buffer.buffer(Tokens.sha256(token)))).map(rows -> {
      if (rows.size() == 0) {
        return Optional.empty();
      }
      Row r = rows.iterator().next();
      Optional<Person> agent = state.current().personById(r.getUUID("agent_person_id").toString())
          .filter(p -> p.isAgentAccount() && !p.isDeactivated());
      return agent.map(p -> new Actor.Agent(p.id(), p.slug(), p.fullName(), r.getUUID("id").toString(),
          new HashSet<>(Arrays.asList(r.getArrayOfStrings("scopes")))));
    });
  }

  /** Ids of agent accounts holding at least one active grant (their votes count toward purges). */
  public static Future<Set<String>> agentsWithActiveGrant(SqlClient client) {
    return client.query(AGENTS_WITH_ACTIVE_GRANT).execute().map(rows -> {
      Set<String> ids = new HashSet<>();
      rows.forEach(r -> ids.add(r.getUUID(0).toString()));
      return ids;
    });
  }

  static JsonObject grantJson(Row r, boolean active) {
    return new JsonObject().put("id", r.getUUID("id").toString())
        .put("scopes", new JsonArray(Arrays.asList(r.getArrayOfStrings("scopes"))))
        .put("createdAt", iso(r.getOffsetDateTime("created_at")))
        .put("expiresAt", iso(r.getOffsetDateTime("expires_at")))
        .put("active", active);
  }
}
