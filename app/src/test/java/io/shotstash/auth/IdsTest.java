package io.shotstash.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class IdsTest {
  private static final long NOW = 1_767_323_045_123L; // 2026-01-02T03:04:05.123Z

  @Test
  void uuid7IsVersion7Variant2() {
    UUID id = Ids.uuid7(NOW);
    assertThat(id.version()).isEqualTo(7);
    assertThat(id.variant()).isEqualTo(2);
  }

  @Test
  void uuid7CarriesTheMillisecondsInItsFirst48Bits() {
    assertThat(Ids.uuid7(NOW).getMostSignificantBits() >>> 16).isEqualTo(NOW);
    assertThat(Ids.uuid7(NOW).toString()).startsWith(String.format("%08x-%04x-7", NOW >>> 16, NOW & 0xFFFF));
  }

  @Test
  void theTextFormIsCanonicalVersion7() {
    String id = Ids.uuid7();
    assertThat(id).matches("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    assertThat(Ids.isUuid(id)).isTrue();
    assertThat(UUID.fromString(id).version()).isEqualTo(7);
    long millis = UUID.fromString(id).getMostSignificantBits() >>> 16;
    assertThat(millis).isPositive();
  }

  @Test
  void idsAreTimeOrderedAcrossCallsAMillisecondApart() {
    String previous = Ids.uuid7(NOW).toString();
    for (int i = 1; i <= 2000; i++) {
      String next = Ids.uuid7(NOW + i).toString();
      assertThat(next).as("id at +%d ms", i).isGreaterThan(previous);
      previous = next;
    }
  }

  @Test
  void idsOfTheSameMillisecondDiffer() {
    Set<UUID> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      assertThat(seen.add(Ids.uuid7(NOW))).isTrue();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"018f3a2b-1c4d-7e5f-8a6b-7c8d9e0f1a2b", "00000000-0000-0000-0000-000000000000",
      "123e4567-e89b-12d3-a456-426614174000"})
  void isUuidAcceptsCanonicalTextOfAnyVersion(String text) {
    assertThat(Ids.isUuid(text)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "018F3A2B-1C4D-7E5F-8A6B-7C8D9E0F1A2B", "018f3a2b1c4d7e5f8a6b7c8d9e0f1a2b",
      "{018f3a2b-1c4d-7e5f-8a6b-7c8d9e0f1a2b}", "018f3a2b-1c4d-7e5f-8a6b-7c8d9e0f1a2", "not-a-uuid"})
  void isUuidRefusesAnythingElse(String text) {
    assertThat(Ids.isUuid(text)).isFalse();
    assertThat(Ids.isUuid(null)).isFalse();
  }
}
