package io.shotstash.worker.ffmpeg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ProxyPlanTest {

  @ParameterizedTest(name = "{0}x{1} -> {2}x{3}")
  @CsvSource({
      "1920,1080,1280,720", // Full HD
      "3840,2160,1280,720", // 4K
      "1280,720,1280,720", // already 720p
      "640,480,640,480", // smaller: never upscaled
      "641,361,640,360", // odd: even, never larger
      "321,241,320,240",
      "1080,1920,406,720", // portrait: the height is 720
      "1440,1080,960,720", // 4:3
      "720,720,720,720",
      "1000,721,998,720",
      "3,1000,2,720", // a sliver stays at least 2 wide
      "1,1,2,2"})
  void scalesToAtMost720HighEvenAndNeverUp(int w, int h, int ew, int eh) {
    ProxyPlan plan = ProxyPlan.forInput(w, h);
    assertThat(plan).isEqualTo(new ProxyPlan(ew, eh));
    assertThat(plan.width() % 2).isZero();
    assertThat(plan.height() % 2).isZero();
    assertThat(plan.height()).isLessThanOrEqualTo(Math.max(2, Math.min(720, h)));
    assertThat(plan.width()).isLessThanOrEqualTo(Math.max(2, w));
  }

  @Test
  void aRotatedStreamIsPlannedOnItsDisplayedSize() {
    assertThat(ProxyPlan.forStream(1920, 1080, 90)).isEqualTo(new ProxyPlan(406, 720));
    assertThat(ProxyPlan.forStream(1920, 1080, -90)).isEqualTo(new ProxyPlan(406, 720));
    assertThat(ProxyPlan.forStream(1920, 1080, 180)).isEqualTo(new ProxyPlan(1280, 720));
    assertThat(ProxyPlan.forStream(1920, 1080, 270)).isEqualTo(new ProxyPlan(406, 720));
  }

  @Test
  void theFilterScalesAndConvertsToYuv420p() {
    assertThat(new ProxyPlan(1280, 720).filter()).isEqualTo("scale=1280:720,format=yuv420p");
  }

  @Test
  void aVideoWithoutASizeHasNoPlan() {
    assertThatThrownBy(() -> ProxyPlan.forInput(0, 1080)).isInstanceOf(IllegalArgumentException.class);
  }
}
