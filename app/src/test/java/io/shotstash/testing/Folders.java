package io.shotstash.testing;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

/**
 * A folder for a test's uploads: {@code POST /api/v1/files} needs a {@code folderId} (a file outside
 * every folder could never be listed), so a test that uploads makes one first, through the same
 * GraphQL mutation a person uses.
 */
public final class Folders {
  private Folders() {}

  /** {@code createFolder(name)} as the bearer {@code token} (an editor or up); answers the folder's id. */
  public static String create(WebClient client, String token, String name) {
    HttpResponse<Buffer> r = client.post("/graphql").bearerTokenAuthentication(token)
        .sendJsonObject(new JsonObject().put("query", "mutation($n: String!) { createFolder(name: $n) { id } }")
            .put("variables", new JsonObject().put("n", name)))
        .await();
    JsonObject body = r.statusCode() == 200 ? r.bodyAsJsonObject() : null;
    JsonObject data = body == null ? null : body.getJsonObject("data");
    if (data == null || data.getJsonObject("createFolder") == null) {
      throw new IllegalStateException("createFolder failed: " + r.statusCode() + " " + r.bodyAsString());
    }
    return data.getJsonObject("createFolder").getString("id");
  }
}
