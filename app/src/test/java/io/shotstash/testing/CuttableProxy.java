package io.shotstash.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on loopback between a client and the app, whose connections a test can cut at any
 * moment ({@link #cut()}): what a dropped Wi-Fi or a restarted router does to an upload. New
 * connections are taken after a cut, as a network that comes back. Plain threads, no Vert.x, so
 * the cut is independent of both ends.
 */
public final class CuttableProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> open = new CopyOnWriteArrayList<>();
  private final AtomicLong upstreamBytes = new AtomicLong();
  private volatile boolean closed;
  /** Bytes a second each client's upstream may send; 0 = as fast as it goes. */
  private volatile long upstreamRate;

  /** A proxy to 127.0.0.1:{@code targetPort} on a free loopback port. */
  public CuttableProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "cuttable-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** Bytes clients sent through the proxy so far (to cut in the middle of an upload). */
  public long upstreamBytes() {
    return upstreamBytes.get();
  }

  /**
   * Slows what clients send to {@code bytesPerSecond} per connection (0: no limit), so an upload
   * through a browser on loopback lasts long enough to be cut or paused in its middle.
   */
  public void throttle(long bytesPerSecond) {
    upstreamRate = bytesPerSecond;
  }

  /** Closes every connection open now, both sides. */
  public void cut() {
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(upstream);
        pump(client, upstream, true);
        pump(upstream, client, false);
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
    }
  }

  private void pump(Socket from, Socket to, boolean counted) {
    Thread t = new Thread(() -> {
      byte[] buf = new byte[64 << 10];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) > 0) {
          out.write(buf, 0, n);
          if (counted) {
            upstreamBytes.addAndGet(n);
            long rate = upstreamRate;
            if (rate > 0) {
              Thread.sleep(Math.max(1, n * 1000L / rate));
            }
          }
        }
      } catch (IOException e) {
        // cut, or one side went away: close both
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "cuttable-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.setSoLinger(true, 0); // a reset, as a dropped network shows up to the peer that writes next
    } catch (IOException e) {
      // closed already
    }
    try {
      s.close();
    } catch (IOException e) {
      // closed already
    }
  }

  @Override
  public void close() {
    closed = true;
    cut();
    try {
      server.close();
    } catch (IOException e) {
      // closed already
    }
  }
}
