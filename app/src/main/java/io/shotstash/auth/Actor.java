package io.shotstash.auth;

import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Set;

/**
 * Who is calling, resolved once per request from a session cookie, a bearer session or an agent
 * grant. It travels in write commands as JSON, so the git writer attributes each commit.
 */
public sealed interface Actor {

  /** Nobody signed in. */
  record Anonymous() implements Actor {}

  /** A person signed in with a session. The level is read from the live public record. */
  record Member(String personId, String slug, String fullName, AccountLevel level, String sessionId) implements Actor {
    public boolean atLeast(AccountLevel required) {
      return level.atLeast(required);
    }
  }

  /** An agent account calling with one of its grants. */
  record Agent(String personId, String slug, String fullName, String grantId, Set<String> scopes) implements Actor {
    public Agent {
      scopes = Set.copyOf(scopes);
    }
  }

  /**
   * A worker of the pipeline calling about one job (its resumable output upload): who it is, from its
   * worker token, and the job the route names. The claim token stays in the request's header, never
   * here. Worker routes only; never in a write command.
   */
  record Worker(String workerId, String jobId) implements Actor {}

  /** The application itself (first-run setup, sweeps). */
  record SystemActor() implements Actor {}

  Anonymous ANONYMOUS = new Anonymous();
  SystemActor SYSTEM = new SystemActor();

  static Member member(Person p, String sessionId) {
    return new Member(p.id(), p.slug(), p.fullName(), p.level(), sessionId);
  }

  /** The form that travels in event-bus messages. */
  default JsonObject toJson() {
    if (this instanceof Member m) {
      return new JsonObject().put("kind", "human").put("personId", m.personId()).put("slug", m.slug())
          .put("fullName", m.fullName()).put("level", m.level().wire()).put("sessionId", m.sessionId());
    }
    if (this instanceof Agent a) {
      return new JsonObject().put("kind", "agent").put("personId", a.personId()).put("slug", a.slug())
          .put("fullName", a.fullName()).put("grantId", a.grantId())
          .put("scopes", new JsonArray(List.copyOf(a.scopes())));
    }
    return new JsonObject().put("kind", this instanceof SystemActor ? "system" : "anonymous");
  }

  private static Set<String> scopes(JsonArray array) {
    Set<String> out = new java.util.HashSet<>();
    if (array != null) {
      for (int i = 0; i < array.size(); i++) {
        out.add(array.getString(i));
      }
    }
    return out;
  }

  static Actor fromJson(JsonObject json) {
    if (json == null) {
      return ANONYMOUS;
    }
    return switch (json.getString("kind", "anonymous")) {
      case "system" -> SYSTEM;
      case "human" -> new Member(json.getString("personId"), json.getString("slug"), json.getString("fullName"),
          AccountLevel.parse(json.getString("level")).orElse(AccountLevel.USER), json.getString("sessionId"));
      case "agent" -> new Agent(json.getString("personId"), json.getString("slug"), json.getString("fullName"),
          json.getString("grantId"), scopes(json.getJsonArray("scopes")));
      default -> ANONYMOUS;
    };
  }
}
