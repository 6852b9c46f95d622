package io.shotstash.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/**
 * Collects what the app logs (everything that reaches logback's root logger) while it is open, so a
 * test can assert on levels and messages. Waiting for a line polls with Vert.x timers (bounded),
 * never sleeps.
 */
public final class LogCapture implements AutoCloseable {
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private LogCapture() {
    appender.setContext(root.getLoggerContext());
    appender.start();
    root.addAppender(appender);
  }

  public static LogCapture start() {
    return new LogCapture();
  }

  /** Every event so far (a copy). */
  public List<ILoggingEvent> events() {
    synchronized (appender.list) {
      return List.copyOf(appender.list);
    }
  }

  public List<ILoggingEvent> at(Level level) {
    return events().stream().filter(e -> e.getLevel() == level).toList();
  }

  /** The first event that matches, waiting up to 10 s for it; null if none came. */
  public ILoggingEvent await(Vertx vertx, Predicate<ILoggingEvent> match) {
    for (int i = 0; i < 400; i++) {
      ILoggingEvent found = events().stream().filter(match).findFirst().orElse(null);
      if (found != null) {
        return found;
      }
      vertx.timer(25).await();
    }
    return null;
  }

  @Override
  public void close() {
    root.detachAppender(appender);
    appender.stop();
  }
}
