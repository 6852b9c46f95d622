package io.shotstash.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import io.shotstash.config.Config.InvalidConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The SHOTSTASH_CLUSTER_* settings and the Hazelcast configuration built from them (nothing starts). */
class ClusterSettingsTest {

  private static io.shotstash.config.Config.Cluster settings(Map<String, String> env) {
    return io.shotstash.config.Config.load(env).cluster();
  }

  @Test
  void theDefaultsJoinOnlyLocalhost() {
    io.shotstash.config.Config.Cluster c = settings(Map.of());
    assertThat(c.host()).isEqualTo("127.0.0.1");
    assertThat(c.port()).isEqualTo(5701);
    assertThat(c.members()).containsExactly("127.0.0.1:5701");
    assertThat(c.busPort()).isZero();
    assertThat(c.configFile()).isNull();
    assertThat(c.nodeName(3005)).isEqualTo("127.0.0.1:3005");
  }

  @Test
  void membersAreHostPortEntriesAndAMissingPortIsTheClusterPort() {
    io.shotstash.config.Config.Cluster c =
        settings(Map.of("SHOTSTASH_CLUSTER_MEMBERS", " 10.0.0.11:5701, 10.0.0.12 ,node-3.internal:6000",
            "SHOTSTASH_CLUSTER_PORT", "5702"));
    assertThat(c.members()).containsExactly("10.0.0.11:5701", "10.0.0.12:5702", "node-3.internal:6000");
  }

  @Test
  void badSettingsStopTheStartWithOneLineEach() {
    InvalidConfigException e = catchThrowableOfType(InvalidConfigException.class, () -> settings(Map.of(
        "SHOTSTASH_CLUSTER_HOST", "not a host", "SHOTSTASH_CLUSTER_PORT", "0",
        "SHOTSTASH_CLUSTER_MEMBERS", "10.0.0.1:99999,ok:1", "SHOTSTASH_CLUSTER_BUS_PORT", "-1")));
    assertThat(e).isNotNull();
    assertThat(e.problems()).anyMatch(p -> p.startsWith("SHOTSTASH_CLUSTER_HOST"))
        .anyMatch(p -> p.startsWith("SHOTSTASH_CLUSTER_PORT"))
        .anyMatch(p -> p.startsWith("SHOTSTASH_CLUSTER_MEMBERS") && p.contains("10.0.0.1:99999"))
        .anyMatch(p -> p.startsWith("SHOTSTASH_CLUSTER_BUS_PORT"));
  }

  @Test
  void hazelcastFindsMembersByTcpIpOnlyBindsTheHostAndNeverPhonesHome() {
    Config hz = ClusterNode.hazelcastConfig(settings(Map.of("SHOTSTASH_CLUSTER_PORT", "5799",
        "SHOTSTASH_CLUSTER_MEMBERS", "127.0.0.1:5799,127.0.0.1:5798")));
    JoinConfig join = hz.getNetworkConfig().getJoin();
    assertThat(join.getMulticastConfig().isEnabled()).isFalse();
    assertThat(join.getAutoDetectionConfig().isEnabled()).isFalse();
    assertThat(join.getTcpIpConfig().isEnabled()).isTrue();
    assertThat(join.getTcpIpConfig().getMembers()).containsExactly("127.0.0.1:5799", "127.0.0.1:5798");
    assertThat(hz.getNetworkConfig().getPort()).isEqualTo(5799);
    assertThat(hz.getNetworkConfig().isPortAutoIncrement()).isFalse();
    assertThat(hz.getNetworkConfig().getInterfaces().isEnabled()).isTrue();
    assertThat(hz.getNetworkConfig().getInterfaces().getInterfaces()).containsExactly("127.0.0.1");
    assertThat(hz.getProperty("hazelcast.phone.home.enabled")).isEqualTo("false");
    assertThat(hz.getProperty("hazelcast.socket.bind.any")).isEqualTo("false");
    // the failure detector that makes a frozen writer move in about 5 s
    assertThat(hz.getProperty("hazelcast.heartbeat.interval.seconds")).isEqualTo("1");
    assertThat(hz.getProperty("hazelcast.max.no.heartbeat.seconds")).isEqualTo("5");
    assertThat(hz.getMapConfig("shotstash.rate-limits").getInMemoryFormat().name()).isEqualTo("OBJECT");
  }

  @Test
  void anotherConfigurationFileCanReplaceTheShippedOne(@TempDir Path tmp) throws Exception {
    Path file = tmp.resolve("cluster.xml");
    Files.writeString(file, """
        <hazelcast xmlns="http://www.hazelcast.com/schema/config">
          <cluster-name>elsewhere</cluster-name>
          <network><join><multicast enabled="true"/></join></network>
        </hazelcast>
        """);
    Config hz = ClusterNode.hazelcastConfig(settings(Map.of("SHOTSTASH_CLUSTER_CONFIG", file.toString())));
    assertThat(hz.getClusterName()).isEqualTo("elsewhere");
    // the settings still win over the file's network part
    assertThat(hz.getNetworkConfig().getJoin().getMulticastConfig().isEnabled()).isFalse();
    assertThat(hz.getNetworkConfig().getJoin().getTcpIpConfig().getMembers()).isEqualTo(List.of("127.0.0.1:5701"));
  }
}
