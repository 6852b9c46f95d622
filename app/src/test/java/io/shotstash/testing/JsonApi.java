package io.shotstash.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import java.util.ArrayList;
import java.util.List;

/**
 * Calls to the app's JSON API with a bearer token (a session or an agent's grant), and assertions
 * on its envelopes ({@code success}, {@code data} or {@code error}, {@code metadata}). What the route
 * tests' harnesses share; each adds the helpers of its own area.
 */
public class JsonApi {
  public final TestApp app;

  public JsonApi(TestApp app) {
    this.app = app;
  }

  // ---- calls ----

  public HttpResponse<Buffer> call(HttpMethod method, String path, String token, JsonObject body) {
    HttpRequest<Buffer> request = app.client().request(method, path);
    if (token != null) {
      request.bearerTokenAuthentication(token);
    }
    return body == null ? request.send().await() : request.sendJsonObject(body).await();
  }

  /** Sends a raw body with a JSON content type (for malformed bodies). */
  public HttpResponse<Buffer> raw(HttpMethod method, String path, String token, String body) {
    HttpRequest<Buffer> request = app.client().request(method, path).putHeader("Content-Type", "application/json");
    if (token != null) {
      request.bearerTokenAuthentication(token);
    }
    return request.sendBuffer(Buffer.buffer(body)).await();
  }

  public HttpResponse<Buffer> get(String path, String token) {
    return call(HttpMethod.GET, path, token, null);
  }

  public HttpResponse<Buffer> post(String path, String token, JsonObject body) {
    return call(HttpMethod.POST, path, token, body == null ? new JsonObject() : body);
  }

  public HttpResponse<Buffer> patch(String path, String token, JsonObject body) {
    return call(HttpMethod.PATCH, path, token, body);
  }

  public HttpResponse<Buffer> delete(String path, String token) {
    return call(HttpMethod.DELETE, path, token, null);
  }

  // ---- envelopes ----

  /** Asserts a success envelope with {@code status} and returns the whole body. */
  public static JsonObject ok(HttpResponse<Buffer> r, int status) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(status);
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getBoolean("success")).isTrue();
    assertThat(body.getJsonObject("metadata").getString("timestamp")).isNotBlank();
    return body;
  }

  public static JsonObject data(HttpResponse<Buffer> r, int status) {
    return ok(r, status).getJsonObject("data");
  }

  public static JsonObject data(HttpResponse<Buffer> r) {
    return data(r, 200);
  }

  public static JsonArray list(HttpResponse<Buffer> r) {
    return ok(r, 200).getJsonArray("data");
  }

  /** Asserts an error envelope with {@code status} and {@code code} and returns the error object. */
  public static JsonObject error(HttpResponse<Buffer> r, int status, String code) {
    assertThat(r.statusCode()).as(r.bodyAsString()).isEqualTo(status);
    JsonObject body = r.bodyAsJsonObject();
    assertThat(body.getBoolean("success")).isFalse();
    JsonObject error = body.getJsonObject("error");
    assertThat(error.getString("code")).as(r.bodyAsString()).isEqualTo(code);
    assertThat(error.getString("traceId")).isNotBlank();
    assertThat(body.getJsonObject("metadata").getString("timestamp")).isNotBlank();
    return error;
  }

  /** A 422 validation_failed naming {@code field}; returns the reason. */
  public static String invalid(HttpResponse<Buffer> r, String field) {
    JsonObject fields = error(r, 422, "validation_failed").getJsonObject("fields");
    assertThat(fields.fieldNames()).as(r.bodyAsString()).contains(field);
    return fields.getString(field);
  }

  /** The {@code slug} of each object of a list (people, roster rows). */
  public static List<String> slugs(JsonArray rows) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < rows.size(); i++) {
      out.add(rows.getJsonObject(i).getString("slug"));
    }
    return out;
  }
}
