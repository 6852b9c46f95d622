package io.shotstash.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.slf4j.LoggerFactory;

/** Everything logged while a test runs (all loggers), to check that no secret is ever written. */
final class LogCapture implements AutoCloseable {
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

  private LogCapture() {
    appender.start();
    root.addAppender(appender);
  }

  static LogCapture start() {
    return new LogCapture();
  }

  /** Each event as text: the message and every exception message in its causes. */
  List<String> lines() {
    List<String> lines = new ArrayList<>();
    synchronized (appender) {
      for (ILoggingEvent e : new ArrayList<>(appender.list)) {
        StringBuilder b = new StringBuilder(e.getLoggerName()).append(' ').append(e.getFormattedMessage());
        for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
          b.append(" | ").append(t.getClassName()).append(": ").append(t.getMessage());
        }
        lines.add(b.toString());
      }
    }
    return lines;
  }

  void assertNoneContains(Collection<String> secrets) {
    List<String> lines = lines();
    assertThat(lines).as("something was logged").isNotEmpty();
    for (String secret : secrets) {
      assertThat(lines).as("no log line holds a token or claim").noneMatch(line -> line.contains(secret));
    }
  }

  @Override
  public void close() {
    root.detachAppender(appender);
    appender.stop();
  }
}
