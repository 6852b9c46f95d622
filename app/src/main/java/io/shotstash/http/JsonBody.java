package io.shotstash.http;

import io.shotstash.bus.ApiError;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Reads a request's JSON object body strictly: it must be an object, carry only the keys the
 * route knows, and each value must have the expected type. Problems become one 422 with fields.
 * Every string in it, nested ones and keys included, must be {@link StorableText storable}.
 */
public final class JsonBody {
  private final JsonObject json;
  private final Map<String, String> problems = new LinkedHashMap<>();

  private JsonBody(JsonObject json) {
    this.json = json;
  }

  /** Parses the body (absent or empty counts as {}) and refuses unknown keys. */
  public static JsonBody of(RoutingContext ctx, Set<String> allowedKeys) {
    Buffer buffer = ctx.body() == null ? null : ctx.body().buffer();
    if (buffer == null || buffer.length() == 0) {
      return new JsonBody(new JsonObject());
    }
    Object parsed;
    try {
      parsed = buffer.toJsonValue();
    } catch (DecodeException e) {
      throw ApiError.validation("body", "must be a JSON object").toException();
    }
    if (!(parsed instanceof JsonObject obj)) {
      throw ApiError.validation("body", "must be a JSON object").toException();
    }
    JsonBody body = new JsonBody(obj);
    // Text the stores cannot hold as sent is refused here, before any route reads (or looks up) a
    // value, so no route can forget it: one 422 naming every such field.
    List<StorableText.Problem> unstorable = StorableText.findAll(obj);
    unstorable.forEach(p -> body.problems.putIfAbsent(p.path(), p.reason()));
    for (String key : obj.fieldNames()) {
      if (!allowedKeys.contains(key)) {
        body.problems.putIfAbsent(key, "is not a known field");
      }
    }
    if (!unstorable.isEmpty()) {
      body.validate();
    }
    return body;
  }

  /** A string field; null when absent; a non-string is a problem. */
  public String string(String key) {
    return typed(key, String.class, "must be a string");
  }

  /**
   * An optional string field that {@code rule} checks (it answers a problem, or null): when present
   * it goes into {@code params} as {@code param}.
   */
  public void putChecked(JsonObject params, String param, String key, Function<String, String> rule) {
    String v = string(key);
    if (v != null) {
      problem(key, rule.apply(v));
      params.put(param, v);
    }
  }

  /** Whether the body names the key at all (a null value counts: it clears the field). */
  public boolean has(String key) {
    return json.containsKey(key);
  }

  public Boolean bool(String key) {
    return typed(key, Boolean.class, "must be true or false");
  }

  /** The field as a {@code type}; null when absent; another type is the problem {@code reason}. */
  private <T> T typed(String key, Class<T> type, String reason) {
    Object v = json.getValue(key);
    if (v == null) {
      return null;
    }
    if (!type.isInstance(v)) {
      problems.put(key, reason);
      return null;
    }
    return type.cast(v);
  }

  public void problem(String key, String reason) {
    if (reason != null) {
      problems.putIfAbsent(key, reason);
    }
  }

  public void problems(Map<String, String> more) {
    more.forEach(problems::putIfAbsent);
  }

  /** Throws the collected problems as one 422, if any. */
  public void validate() {
    if (!problems.isEmpty()) {
      throw ApiError.validation(problems).toException();
    }
  }

  /** Problems with things other than a JSON body (headers, query parameters), collected into one 422. */
  public static final class Problems {
    private final Map<String, String> fields = new LinkedHashMap<>();

    public void add(String field, String reason) {
      fields.putIfAbsent(field, reason);
    }

    public void throwIfAny() {
      if (!fields.isEmpty()) {
        throw ApiError.validation(fields).toException();
      }
    }
  }
}
