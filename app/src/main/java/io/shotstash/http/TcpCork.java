package io.shotstash.http;

import io.netty.channel.Channel;
import io.netty.channel.epoll.EpollSocketChannelConfig;
import io.vertx.core.Future;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.function.Supplier;

/**
 * TCP_CORK around a large file sent with sendfile, as nginx's {@code tcp_nopush}: the kernel sends
 * only full segments while the file goes out, and the last partial one when the cork comes off at
 * the end. Vert.x sends a file in 1 MiB regions, one after the other, on a socket with TCP_NODELAY
 * (right for the small JSON answers that share the connection); uncorked, the tail of every region
 * leaves as a short segment. Measured on loopback: nginx 1.6 GB/s without {@code tcp_nopush}, 1.9
 * GB/s with it (docs/benchmarks.md, streaming). Only the native epoll transport can cork; on NIO,
 * or below {@link #MIN_BYTES}, the send runs as it is.
 */
final class TcpCork {
  /** Below this a body is a handful of segments: corking would save nothing. */
  static final long MIN_BYTES = 1 << 20;

  private TcpCork() {}

  static Future<Void> around(HttpConnection connection, long length, Supplier<Future<Void>> send) {
    EpollSocketChannelConfig config = length >= MIN_BYTES ? epollConfig(connection) : null;
    if (config == null) {
      return send.get();
    }
    config.setTcpCork(true);
    // off again however the send ends: the next answer on this keep-alive connection must not wait
    return send.get().andThen(done -> config.setTcpCork(false));
  }

  /**
   * The socket's epoll options, or null when the connection is not a plain epoll socket. Vert.x
   * has no public way to reach a connection's Netty channel; its HTTP/1 server connections extend
   * the internal {@code ConnectionBase} (Vert.x 5), which has one. TcpCorkTest fails if that changes.
   */
  private static EpollSocketChannelConfig epollConfig(HttpConnection connection) {
    if (connection instanceof ConnectionBase base) {
      Channel channel = base.channel();
      if (channel != null && channel.config() instanceof EpollSocketChannelConfig config) {
        return config;
      }
    }
    return null;
  }
}
