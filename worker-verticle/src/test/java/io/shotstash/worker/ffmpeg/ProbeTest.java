package io.shotstash.worker.ffmpeg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ProbeTest {

  @Test
  void firstVideoThatIsNotACoverAndFirstAudio() {
    Probe p = Probe.parse("""
        {"streams":[
          {"index":0,"codec_type":"audio"},
          {"index":1,"codec_type":"video","width":600,"height":600,"disposition":{"attached_pic":1}},
          {"index":2,"codec_type":"video","width":1920,"height":1080,"duration":"1.9"},
          {"index":3,"codec_type":"video","width":640,"height":480},
          {"index":4,"codec_type":"audio"}],
         "format":{"duration":"2.000000"}}""");
    assertThat(p.video()).isEqualTo(new Probe.Video(2, 1920, 1080, 0));
    assertThat(p.audioIndex()).isZero();
    assertThat(p.durationSeconds()).isEqualTo(2.0);
  }

  @Test
  void noVideoStream() {
    Probe p = Probe.parse("{\"streams\":[{\"index\":0,\"codec_type\":\"audio\"}],\"format\":{\"duration\":\"1.0\"}}");
    assertThat(p.video()).isNull();
    assertThat(p.audioIndex()).isZero();
  }

  @Test
  void theStreamDurationWhenTheFormatHasNone() {
    Probe p = Probe
        .parse("{\"streams\":[{\"index\":0,\"codec_type\":\"video\",\"width\":2,\"height\":2,\"duration\":\"3.5\"}],"
            + "\"format\":{\"duration\":\"N/A\"}}");
    assertThat(p.durationSeconds()).isEqualTo(3.5);
    assertThat(p.audioIndex()).isNull();
  }

  @Test
  void rotationFromSideDataOrTag() {
    Probe side = Probe.parse("{\"streams\":[{\"index\":0,\"codec_type\":\"video\",\"width\":1920,\"height\":1080,"
        + "\"side_data_list\":[{\"side_data_type\":\"Display Matrix\",\"rotation\":-90}]}]}");
    assertThat(side.video().rotation()).isEqualTo(-90);
    Probe tag = Probe.parse("{\"streams\":[{\"index\":0,\"codec_type\":\"video\",\"width\":1920,\"height\":1080,"
        + "\"tags\":{\"rotate\":\"90\"}}]}");
    assertThat(tag.video().rotation()).isEqualTo(90);
  }

  @Test
  void notJson() {
    assertThatThrownBy(() -> Probe.parse("garbage")).isInstanceOf(IllegalArgumentException.class);
  }
}
