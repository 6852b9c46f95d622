package io.shotstash.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Map;

/**
 * The logging setup: plain lines on standard output, our INFO, the chattier libraries at WARN.
 * Logback finds it through {@code META-INF/services} before it would look for a logback.xml; set in
 * code, it costs the start about a third of parsing an XML file (docs/benchmarks.md). Started with
 * {@code -Dlogback.configurationFile=...}, logback reads that file instead (docs/operations.md).
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
  static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%n";

  /** Levels other than the root's INFO. */
  static final Map<String, Level> LEVELS = Map.of(
      "org.flywaydb", Level.WARN,
      // Vert.x registers one event-bus gauge twice at start; the duplicate is ignored and harmless
      "io.micrometer.core.instrument.MeterRegistry", Level.ERROR,
      "io.netty", Level.WARN,
      "org.eclipse.jgit", Level.WARN,
      "com.hazelcast", Level.WARN,
      // the embedded PostgreSQL's library: our own lines say what it does (its server logs to a file)
      "io.zonky", Level.WARN,
      // in a cluster: the member list whenever it changes; not the notice that the CP subsystem (unused) is off
      "com.hazelcast.internal.cluster.ClusterService", Level.INFO,
      "com.hazelcast.cp.CPSubsystem", Level.ERROR);

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (System.getProperty("logback.configurationFile") != null) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY; // the operator's own file
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("STDOUT");
    console.setEncoder(encoder);
    console.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(console);
    LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }
}
