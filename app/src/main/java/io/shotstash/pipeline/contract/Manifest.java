package io.shotstash.pipeline.contract;

import io.shotstash.bus.ApiError;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A worker's manifest: {@code {name, version, kinds, contract}}. Parsing checks the contract major
 * first (422 CONTRACT_UNSUPPORTED), then the other fields (400 INVALID_MANIFEST).
 */
public record Manifest(String name, String version, List<String> kinds, String contract) {
  public static final int CONTRACT_MAJOR = 1;
  private static final Pattern CONTRACT_TEXT = Pattern.compile("^\\d{1,4}(\\.\\d+){0,2}$");

  public Manifest {
    kinds = List.copyOf(kinds);
  }

  public JsonObject toJson() {
    return new JsonObject().put("name", name).put("version", version).put("kinds", new JsonArray(kinds))
        .put("contract", contract);
  }

  public static Manifest fromJson(JsonObject json) {
    List<String> kinds = new ArrayList<>();
    json.getJsonArray("kinds").forEach(k -> kinds.add((String) k));
    return new Manifest(json.getString("name"), json.getString("version"), kinds, json.getString("contract"));
  }

  /** Reads {@code body.manifest}; throws the contract's refusal. */
  public static Manifest parse(Object manifest) {
    if (!(manifest instanceof JsonObject m)) {
      throw PipelineErrors.invalidManifest("manifest is missing or not an object").toException();
    }
    Integer major = contractMajor(m.getValue("contract"));
    if (major == null || major != CONTRACT_MAJOR) {
      throw PipelineErrors.contractUnsupported().toException();
    }
    String name = text(m.getValue("name"), 100, "name");
    String version = text(m.getValue("version"), 50, "version");
    Object rawKinds = m.getValue("kinds");
    if (!(rawKinds instanceof JsonArray array) || array.isEmpty() || array.size() > 32) {
      throw refuse("kinds must list 1 to 32 kind names");
    }
    LinkedHashSet<String> kinds = new LinkedHashSet<>();
    for (Object k : array) {
      if (!(k instanceof String s) || !Kinds.valid(s)) {
        throw refuse("kinds: '" + k + "' is not a kind name (namespace/name, lowercase)");
      }
      if (!Kinds.registrable(s)) {
        throw refuse("kinds: '" + s + "' is in the " + Kinds.RESERVED_NAMESPACE + " namespace, which holds only the"
            + " built-in kinds (" + String.join(", ", Kinds.BUILT_IN) + "); use a namespace of your own");
      }
      kinds.add(s);
    }
    return new Manifest(name, version, new ArrayList<>(kinds), String.valueOf(m.getValue("contract")));
  }

  /** The major of a contract value: a number's integer part, or a version string's first part; null if neither. */
  static Integer contractMajor(Object contract) {
    if (contract instanceof Number n) {
      double d = n.doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d) || d < 0 || d > 9999) {
        return null;
      }
      return (int) Math.floor(d);
    }
    if (contract instanceof String s && CONTRACT_TEXT.matcher(s).matches()) {
      return Integer.parseInt(s.split("\\.")[0]);
    }
    return null;
  }

  private static String text(Object value, int max, String field) {
    if (!(value instanceof String s)) {
      throw refuse(field + " must be a string of 1 to " + max + " characters");
    }
    String trimmed = s.strip();
    if (trimmed.isEmpty() || trimmed.length() > max) {
      throw refuse(field + " must be 1 to " + max + " characters");
    }
    return trimmed;
  }

  private static RuntimeException refuse(String message) {
    ApiError e = PipelineErrors.invalidManifest(message);
    return e.toException();
  }
}
