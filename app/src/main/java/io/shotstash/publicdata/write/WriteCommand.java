package io.shotstash.publicdata.write;

import io.shotstash.auth.Actor;
import io.vertx.core.json.JsonObject;

/**
 * A request to change public data, as it travels to {@code publicdata.write}: the action that names
 * the rule, who asks, the HTTP request it came from (for the commit subject) and the parameters.
 */
public record WriteCommand(String action, Actor actor, String method, String path, JsonObject params) {

  public WriteCommand {
    params = params == null ? new JsonObject() : params;
  }

  public JsonObject toJson() {
    return new JsonObject().put("action", action).put("actor", actor.toJson()).put("method", method)
        .put("path", path).put("params", params);
  }

  public static WriteCommand fromJson(JsonObject json) {
    return new WriteCommand(json.getString("action"), Actor.fromJson(json.getJsonObject("actor")),
        json.getString("method"), json.getString("path"), json.getJsonObject("params"));
  }
}
