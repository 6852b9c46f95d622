package io.shotstash.metrics;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The process-wide Prometheus registry behind {@code GET /metrics}: Vert.x's own metrics (when the
 * Vert.x instance was built with it, as {@code serve} does) and the JVM's.
 */
public final class Metrics {
  private static final PrometheusMeterRegistry REGISTRY = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private static final AtomicBoolean JVM_BOUND = new AtomicBoolean();

  private Metrics() {}

  public static PrometheusMeterRegistry registry() {
    return REGISTRY;
  }

  /**
   * Adds the JVM's meters (memory, GC, threads, CPU), once per process. The app calls it when its
   * start is done: making them costs the start a tenth of a second, and they are only read later.
   */
  @SuppressWarnings("resource") // JvmGcMetrics lives as long as the process
  public static void bindJvmMetrics() {
    if (JVM_BOUND.compareAndSet(false, true)) {
      new JvmMemoryMetrics().bindTo(REGISTRY);
      new JvmGcMetrics().bindTo(REGISTRY);
      new JvmThreadMetrics().bindTo(REGISTRY);
      new ProcessorMetrics().bindTo(REGISTRY);
    }
  }
}
