package io.shotstash.app;

import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * The process-wide Prometheus registry behind {@code GET /metrics}: Vert.x's own metrics (when the
 * Vert.x instance was built with it, as {@code serve} does) and the JVM's.
 */
public final class Metrics {
  private static final PrometheusMeterRegistry REGISTRY = create();

  private Metrics() {}

  public static PrometheusMeterRegistry registry() {
    return REGISTRY;
  }

  @SuppressWarnings("resource") // JvmGcMetrics lives as long as the process
  private static PrometheusMeterRegistry create() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmGcMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    return registry;
  }
}
