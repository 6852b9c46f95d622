package io.shotstash.pipeline.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.shotstash.bus.ApiError;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The manifest rules of PIPELINE.md → Validation details: contract major first, then name, version and kinds. */
class ManifestTest {

  static JsonObject valid() {
    return new JsonObject().put("name", "acme-worker").put("version", "1.0.0")
        .put("kinds", new JsonArray().add("acme/transcript")).put("contract", 1);
  }

  /** The refusal {@link Manifest#parse} throws. */
  static ApiError refusal(Object manifest) {
    Throwable thrown = catchThrowable(() -> Manifest.parse(manifest));
    assertThat(thrown).as("parse(%s) should refuse", manifest).isNotNull();
    ApiError error = ApiError.from(thrown);
    assertThat(error).as("a contract refusal, not %s", thrown).isNotNull();
    return error;
  }

  static Stream<Arguments> acceptedContracts() {
    return Stream.of(Arguments.of(1, "1"), Arguments.of(1.9, "1.9"), Arguments.of("1", "1"), Arguments.of("1.2", "1.2"),
        Arguments.of("1.2.3", "1.2.3"));
  }

  @ParameterizedTest(name = "contract {0} is major 1")
  @MethodSource("acceptedContracts")
  void contractMajorOneIsAccepted(Object contract, String stored) {
    Manifest m = Manifest.parse(valid().put("contract", contract));
    assertThat(m.contract()).isEqualTo(stored);
    assertThat(Manifest.contractMajor(contract)).isEqualTo(1);
  }

  static Stream<Arguments> unsupportedContracts() {
    return Stream.of(Arguments.of(2), Arguments.of("2.0"), Arguments.of("x"), Arguments.of("1.2.3.4"),
        Arguments.of((Object) null), Arguments.of(true), Arguments.of(-1), Arguments.of(0), Arguments.of(""),
        Arguments.of(" 1"), Arguments.of("1."), Arguments.of("v1"), Arguments.of(new JsonArray().add(1)),
        Arguments.of(new JsonObject().put("major", 1)));
  }

  @ParameterizedTest(name = "contract {0} answers CONTRACT_UNSUPPORTED")
  @MethodSource("unsupportedContracts")
  void anotherMajorOrNoMajorIsUnsupported(Object contract) {
    ApiError e = refusal(valid().put("contract", contract));
    assertThat(e.status()).isEqualTo(422);
    assertThat(e.code()).isEqualTo("CONTRACT_UNSUPPORTED");
  }

  @Test
  void aMissingContractIsUnsupported() {
    JsonObject m = valid();
    m.remove("contract");
    assertThat(refusal(m).code()).isEqualTo("CONTRACT_UNSUPPORTED");
  }

  @Test
  void contractMajorReadsNumbersAndVersionStrings() {
    assertThat(Manifest.contractMajor(1)).isEqualTo(1);
    assertThat(Manifest.contractMajor(1.99)).isEqualTo(1);
    assertThat(Manifest.contractMajor(3L)).isEqualTo(3);
    assertThat(Manifest.contractMajor("12.0.1")).isEqualTo(12);
    assertThat(Manifest.contractMajor("9999")).isEqualTo(9999);
    assertThat(Manifest.contractMajor("12345")).isNull();
    assertThat(Manifest.contractMajor(Double.NaN)).isNull();
    assertThat(Manifest.contractMajor(Double.POSITIVE_INFINITY)).isNull();
    assertThat(Manifest.contractMajor(-0.5)).isNull();
  }

  @Test
  void theContractIsCheckedBeforeTheOtherFields() {
    JsonObject noName = new JsonObject().put("contract", 2);
    ApiError e = refusal(noName);
    assertThat(e.status()).isEqualTo(422);
    assertThat(e.code()).isEqualTo("CONTRACT_UNSUPPORTED");

    JsonObject everythingBad = new JsonObject().put("contract", "2.0").put("name", "").put("version", 7)
        .put("kinds", new JsonArray().add("NOT A KIND"));
    assertThat(refusal(everythingBad).code()).isEqualTo("CONTRACT_UNSUPPORTED");
  }

  @Test
  void aManifestThatIsMissingOrNotAnObjectIsInvalid() {
    for (Object m : new Object[]{null, "manifest", 1, new JsonArray().add(valid())}) {
      ApiError e = refusal(m);
      assertThat(e.status()).isEqualTo(400);
      assertThat(e.code()).isEqualTo("INVALID_MANIFEST");
    }
  }

  @Test
  void nameAndVersionAreTrimmed() {
    Manifest m = Manifest.parse(valid().put("name", "  acme-worker\t").put("version", " 2.1.0 "));
    assertThat(m.name()).isEqualTo("acme-worker");
    assertThat(m.version()).isEqualTo("2.1.0");
  }

  @Test
  void nameIsOneToOneHundredCharactersAfterTrimming() {
    String hundred = "n".repeat(100);
    assertThat(Manifest.parse(valid().put("name", hundred)).name()).isEqualTo(hundred);
    assertThat(Manifest.parse(valid().put("name", "  " + hundred + "  ")).name()).isEqualTo(hundred);
    assertThat(Manifest.parse(valid().put("name", "n")).name()).isEqualTo("n");
  }

  @Test
  void versionIsOneToFiftyCharactersAfterTrimming() {
    String fifty = "v".repeat(50);
    assertThat(Manifest.parse(valid().put("version", fifty)).version()).isEqualTo(fifty);
    assertThat(Manifest.parse(valid().put("version", " " + fifty + " ")).version()).isEqualTo(fifty);
    assertThat(Manifest.parse(valid().put("version", "1")).version()).isEqualTo("1");
  }

  static Stream<Arguments> invalidManifests() {
    return Stream.of(
        Arguments.of("name missing", without("name")),
        Arguments.of("name empty", valid().put("name", "")),
        Arguments.of("name blank", valid().put("name", "   ")),
        Arguments.of("name 101 characters", valid().put("name", "n".repeat(101))),
        Arguments.of("name not a string", valid().put("name", 42)),
        Arguments.of("name null", valid().putNull("name")),
        Arguments.of("version missing", without("version")),
        Arguments.of("version empty", valid().put("version", "")),
        Arguments.of("version blank", valid().put("version", " \t ")),
        Arguments.of("version 51 characters", valid().put("version", "v".repeat(51))),
        Arguments.of("version not a string", valid().put("version", 1.0)),
        Arguments.of("kinds missing", without("kinds")),
        Arguments.of("kinds empty", valid().put("kinds", new JsonArray())),
        Arguments.of("kinds not a list", valid().put("kinds", "acme/transcript")),
        Arguments.of("kinds 33 names", valid().put("kinds", kinds(33))),
        Arguments.of("kind uppercase", valid().put("kinds", new JsonArray().add("Acme/transcript"))),
        Arguments.of("kind without namespace", valid().put("kinds", new JsonArray().add("transcript"))),
        Arguments.of("kind not a string", valid().put("kinds", new JsonArray().add("acme/a").add(7))),
        Arguments.of("kind null", valid().put("kinds", new JsonArray().add("acme/a").addNull())),
        Arguments.of("one bad kind among good ones", valid().put("kinds", new JsonArray().add("acme/a").add("acme/"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidManifests")
  void outOfBoundsFieldsAreInvalidManifests(String why, JsonObject manifest) {
    ApiError e = refusal(manifest);
    assertThat(e.status()).isEqualTo(400);
    assertThat(e.code()).isEqualTo("INVALID_MANIFEST");
    assertThat(e.message()).isNotBlank();
  }

  @ParameterizedTest(name = "{0}: the shotstash/ namespace holds only the built-in kinds")
  @ValueSource(strings = {"shotstash/my-proxy", "shotstash/proxy-1080p", "shotstash/x", "shotstash/proxy-720p.",
      "shotstash/heic-to-jpeg-", "shotstash/-", "shotstash/.."})
  void aKindInTheReservedNamespaceThatIsNotBuiltInIsAnInvalidManifest(String kind) {
    ApiError e = refusal(valid().put("kinds", new JsonArray().add("acme/a").add(kind)));
    assertThat(e.status()).isEqualTo(400);
    assertThat(e.code()).isEqualTo("INVALID_MANIFEST");
    assertThat(e.message()).contains(kind).contains("shotstash/");
  }

  @Test
  void theBuiltInKindsMayBeListedByTheWorkersThatMakeThem() {
    Manifest m =
        Manifest.parse(valid().put("kinds", new JsonArray().add("shotstash/proxy-720p").add("shotstash/heic-to-jpeg")));
    assertThat(m.kinds()).containsExactly("shotstash/proxy-720p", "shotstash/heic-to-jpeg");
  }

  @ParameterizedTest(name = "{0} is not in the reserved namespace")
  @ValueSource(strings = {"shotstash2/x", "shotstash.io/x", "shotstash-labs/x", "_shotstash/x", "shotstas/x",
      "acme/shotstash", "acme/shotstash-proxy-720p"})
  void namespacesThatOnlyLookLikeTheReservedOneAreFree(String kind) {
    assertThat(Manifest.parse(valid().put("kinds", new JsonArray().add(kind))).kinds()).containsExactly(kind);
  }

  @Test
  void oneToThirtyTwoKindsAreAccepted() {
    assertThat(Manifest.parse(valid().put("kinds", kinds(1))).kinds()).hasSize(1);
    Manifest m = Manifest.parse(valid().put("kinds", kinds(32)));
    assertThat(m.kinds()).hasSize(32).startsWith("acme/k0").endsWith("acme/k31");
  }

  @Test
  void duplicateKindsAreDroppedInOrder() {
    JsonArray list = new JsonArray().add("b/x").add("a/y").add("b/x").add("c/z").add("a/y");
    assertThat(Manifest.parse(valid().put("kinds", list)).kinds()).containsExactly("b/x", "a/y", "c/z");
  }

  @Test
  void unknownFieldsAreIgnored() {
    Manifest m = Manifest.parse(valid().put("future", new JsonObject().put("x", 1)));
    assertThat(m.name()).isEqualTo("acme-worker");
  }

  @Test
  void toJsonAndFromJsonRoundTrip() {
    Manifest m = Manifest.parse(valid().put("contract", "1.2").put("kinds", new JsonArray().add("b/x").add("a/y")));
    JsonObject json = m.toJson();
    assertThat(json.getString("contract")).isEqualTo("1.2");
    assertThat(json.getJsonArray("kinds")).containsExactly("b/x", "a/y");
    assertThat(Manifest.fromJson(json)).isEqualTo(m);
  }

  @Test
  void kindsAreAnImmutableCopy() {
    List<String> source = new ArrayList<>(List.of("acme/a"));
    Manifest m = new Manifest("n", "v", source, "1");
    source.add("acme/b");
    assertThat(m.kinds()).containsExactly("acme/a");
    assertThat(catchThrowable(() -> m.kinds().add("acme/c"))).isInstanceOf(UnsupportedOperationException.class);
  }

  private static JsonObject without(String field) {
    JsonObject m = valid();
    m.remove(field);
    return m;
  }

  private static JsonArray kinds(int n) {
    JsonArray a = new JsonArray();
    IntStream.range(0, n).forEach(i -> a.add("acme/k" + i));
    return a;
  }
}
