package io.shotstash.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;

/**
 * GraphQL over HTTP for the tests that seed or read through {@code /graphql}: the request a person's
 * page sends, and the data of an answer. Each test keeps what it checks beyond that (headers, the
 * codes of errors).
 */
public final class GraphqlHttp {
  private GraphqlHttp() {}

  /**
   * POSTs {@code {query, variables}} to {@code /graphql} with the bearer {@code token} (none when
   * null); asserts the 200 (GraphQL answers its errors in the body) and answers the response.
   */
  public static HttpResponse<Buffer> post(WebClient client, String token, String query, JsonObject variables) {
    HttpRequest<Buffer> req = client.post("/graphql");
    if (token != null) {
      req.bearerTokenAuthentication(token);
    }
    HttpResponse<Buffer> r =
        req.sendJsonObject(new JsonObject().put("query", query).put("variables", variables)).await();
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(200);
    return r;
  }

  /** {@code enqueueJob(fileId, kind)} as the bearer {@code token}; asserts it succeeds and answers the job's id. */
  public static String enqueueJob(WebClient client, String token, String fileId, String kind) {
    JsonObject answer =
        post(client, token, "mutation($f: ID!, $k: String!) { enqueueJob(fileId: $f, kind: $k) { id } }",
            new JsonObject().put("f", fileId).put("k", kind)).bodyAsJsonObject();
    return data(answer).getJsonObject("enqueueJob").getString("id");
  }

  /** The data of an answer that must have no errors. */
  public static JsonObject data(JsonObject answer) {
    assertThat(answer.getJsonArray("errors")).as(answer.encode()).isNull();
    return answer.getJsonObject("data");
  }
}
