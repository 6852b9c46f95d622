package io.shotstash.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import io.shotstash.config.LogFormat;
import java.util.Map;

/**
 * The logging setup: plain lines (or JSON objects, {@code SHOTSTASH_LOG_FORMAT=json}) on standard
 * output, our INFO, the chattier libraries at WARN, the access log off unless
 * {@code SHOTSTASH_ACCESS_LOG=true} ({@link LogFormat}).
 * Logback finds it through {@code META-INF/services} before it would look for a logback.xml; set in
 * code, it costs the start about a third of parsing an XML file (docs/benchmarks.md). Started with
 * {@code -Dlogback.configurationFile=...}, logback reads that file instead (docs/operations.md).
 */
public final class LogSetup extends ContextAwareBase implements Configurator {
  static final String PATTERN = "%d{HH:mm:ss.SSS} %-5level %logger{24} - %msg%replace( %kvp){'^ $', ''}%n";

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
    LogFormat format = LogFormat.of(System.getenv());
    Encoder<ILoggingEvent> encoder = format.json() ? jsonEncoder(context) : textEncoder(context);
    ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
    console.setContext(context);
    console.setName("STDOUT");
    console.setEncoder(encoder);
    console.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(console);
    LEVELS.forEach((name, level) -> context.getLogger(name).setLevel(level));
    context.getLogger(LogFormat.ACCESS_LOGGER).setLevel(format.accessLog() ? Level.INFO : Level.OFF);
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  /** Plain lines; a line's key-value pairs (a request's {@code traceId}, say) follow its message. */
  private static Encoder<ILoggingEvent> textEncoder(LoggerContext context) {
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    return encoder;
  }

  /**
   * One JSON object per line (logback's own encoder): timestamp, level, thread, logger, the
   * formatted message, the key-value pairs ({@code kvpList}) and any exception. Not the raw message
   * and its arguments (the formatted message says it once), nor the logger context's name.
   */
  private static Encoder<ILoggingEvent> jsonEncoder(LoggerContext context) {
    JsonEncoder encoder = new JsonEncoder();
    encoder.setContext(context);
    encoder.setWithSequenceNumber(false);
    encoder.setWithNanoseconds(false);
    encoder.setWithContext(false);
    encoder.setWithMessage(false);
    encoder.setWithArguments(false);
    encoder.setWithFormattedMessage(true);
    encoder.start();
    return encoder;
  }
}
