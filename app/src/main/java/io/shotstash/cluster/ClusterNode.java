package io.shotstash.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.NetworkConfig;
import com.hazelcast.config.XmlConfigBuilder;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import io.shotstash.ratelimit.ClusterRateLimiter;
import io.shotstash.ratelimit.RateLimiter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.util.List;

/**
 * This node's place in the cluster ({@code serve --cluster}): the Hazelcast configuration built from
 * {@code conf/cluster.xml} and the {@code SHOTSTASH_CLUSTER_*} settings, the clustered Vert.x
 * instance, and what the app needs from Hazelcast (the writer's lock, cluster-wide rate limits).
 * Without {@code --cluster} none of this is created.
 */
public final class ClusterNode {
  private final io.shotstash.config.Config.Cluster settings;
  private final HazelcastClusterManager manager;

  private ClusterNode(io.shotstash.config.Config.Cluster settings, Config hazelcast) {
    this.settings = settings;
    this.manager = new HazelcastClusterManager(hazelcast);
  }

  /** Reads the Hazelcast configuration and applies the settings; nothing starts yet. */
  public static ClusterNode configure(io.shotstash.config.Config.Cluster settings) {
    // Hazelcast logs through logback like the rest (also what it logs before reading its configuration)
    if (System.getProperty("hazelcast.logging.type") == null) {
      System.setProperty("hazelcast.logging.type", "slf4j");
    }
    return new ClusterNode(settings, hazelcastConfig(settings));
  }

  /**
   * The Hazelcast configuration: the file named by SHOTSTASH_CLUSTER_CONFIG or the jar's
   * {@code conf/cluster.xml}, then the settings on top: the member port, the one interface to bind,
   * TCP-IP members only (no multicast, no cloud discovery), and no phoning home.
   */
  static Config hazelcastConfig(io.shotstash.config.Config.Cluster settings) {
    Config config;
    try (InputStream in = settings.configFile() != null ? Files.newInputStream(settings.configFile())
        : ClusterNode.class.getResourceAsStream("/conf/cluster.xml")) {
      if (in == null) {
        throw new IllegalStateException("conf/cluster.xml is missing from the class path");
      }
      config = new XmlConfigBuilder(in).build();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the cluster configuration " + settings.configFile(), e);
    } catch (InvalidConfigurationException e) {
      throw new IllegalStateException("the cluster configuration "
          + (settings.configFile() != null ? settings.configFile() : "conf/cluster.xml") + " is not valid: "
          + e.getMessage(), e);
    }
    String address = address(settings.host());
    NetworkConfig network = config.getNetworkConfig();
    network.setPort(settings.port()).setPortAutoIncrement(false);
    network.getInterfaces().setEnabled(true).setInterfaces(List.of(address));
    JoinConfig join = network.getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(true).setMembers(settings.members());
    config.setProperty("hazelcast.phone.home.enabled", "false");
    config.setProperty("hazelcast.socket.bind.any", "false");
    return config;
  }

  /** The IP address of the configured host (Hazelcast binds interfaces by address). */
  private static String address(String host) {
    try {
      return InetAddress.getByName(host).getHostAddress();
    } catch (UnknownHostException e) {
      throw new IllegalStateException("SHOTSTASH_CLUSTER_HOST " + host + " does not resolve", e);
    }
  }

  /** Sets the event bus to this node's address; call before building Vert.x. */
  public VertxOptions applyTo(VertxOptions options) {
    String address = address(settings.host());
    options.getEventBusOptions().setHost(address).setPort(settings.busPort()).setClusterPublicHost(address);
    return options;
  }

  /** Joins the cluster: a clustered Vert.x over this node's Hazelcast member. */
  public Future<Vertx> start(VertxBuilder builder) {
    return builder.withClusterManager(manager).buildClustered().onSuccess(vertx -> hazelcast().getLifecycleService()
        .addLifecycleListener(event -> {
          if (event.getState() == LifecycleState.MERGED) {
            vertx.runOnContext(v -> MergedBus.refresh(vertx));
          }
        }));
  }

  public HazelcastInstance hazelcast() {
    return manager.getHazelcastInstance();
  }

  public io.shotstash.config.Config.Cluster settings() {
    return settings;
  }

  /** How /api/v1/status names this node: its cluster address and HTTP port. */
  public String nodeName(int httpPort) {
    return settings.nodeName(httpPort);
  }

  /** Rate limits that count on every node together. */
  public RateLimiter rateLimiter(Vertx vertx) {
    return new ClusterRateLimiter(vertx, hazelcast());
  }
}
