package io.shotstash.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Where the CPU went during one measurement, from /proc: the whole machine's busy share, and the
 * cores used by PostgreSQL (every {@code postgres} process, plus what the postmaster collected from
 * backends that exited), the app process, this JVM, and the tools this JVM ran and waited for
 * (node, pgbench, wrk, curl, dd: counted through this process's children times).
 */
final class CpuMeter {
  private static final double HZ = 100.0; // USER_HZ on Linux
  private final long appPid;
  private final long startNanos;
  private final long[] startStat;
  private final Map<String, Long> start;

  private CpuMeter(long appPid) {
    this.appPid = appPid;
    this.startStat = PipelineCpu.machine();
    this.start = PipelineCpu.groups(appPid);
    this.startNanos = System.nanoTime();
  }

  /** Starts counting; {@code appPid} is the app process (0: the app runs inside this JVM). */
  static CpuMeter start(long appPid) {
    return new CpuMeter(appPid);
  }

  /** Cores used per group since the start, and "busy" (all cores), "of" (cores on the machine). */
  Map<String, Double> stop() {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    long[] endStat = PipelineCpu.machine();
    Map<String, Long> end = PipelineCpu.groups(appPid);
    Map<String, Double> cores = new LinkedHashMap<>();
    long total = endStat[0] - startStat[0];
    long idle = endStat[1] - startStat[1];
    int n = Runtime.getRuntime().availableProcessors();
    cores.put("busy", total <= 0 ? Double.NaN : n * (double) (total - idle) / total);
    cores.put("of", (double) n);
    double accounted = 0;
    for (Map.Entry<String, Long> e : end.entrySet()) {
      double used = (e.getValue() - start.getOrDefault(e.getKey(), 0L)) / HZ / seconds;
      cores.put(e.getKey(), used);
      accounted += used;
    }
    // interrupts and softirqs (loopback networking among them) and steal are charged to no process
    double irq = total <= 0 ? 0 : n * (double) (endStat[2] - startStat[2]) / total;
    cores.put("irq+steal", irq);
    cores.put("other processes", Math.max(0, cores.get("busy") - accounted - irq));
    return cores;
  }

  /** "1.9 of 2 cores busy: postgres 0.8, app 0.7, bench 0.3, tools 0.0". */
  static String describe(Map<String, Double> c) {
    StringBuilder b =
        new StringBuilder(String.format(Locale.ROOT, "%.1f of %.0f cores busy:", c.get("busy"), c.get("of")));
    String sep = " ";
    for (Map.Entry<String, Double> e : c.entrySet()) {
      if (e.getKey().equals("busy") || e.getKey().equals("of") || e.getValue() < 0.05) {
        continue;
      }
      b.append(sep).append(e.getKey()).append(String.format(Locale.ROOT, " %.1f", e.getValue()));
      sep = ", ";
    }
    return b.toString();
  }

  /** Reading /proc. */
  static final class PipelineCpu {
    private PipelineCpu() {}

    /** Total, idle (idle + iowait), and irq + softirq + steal jiffies of the machine. */
    static long[] machine() {
      try {
        String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < f.length && i <= 8; i++) { // user nice system idle iowait irq softirq steal
          total += Long.parseLong(f[i]);
        }
        return new long[]{total, Long.parseLong(f[4]) + Long.parseLong(f[5]),
            Long.parseLong(f[6]) + Long.parseLong(f[7]) + Long.parseLong(f[8])};
      } catch (IOException | RuntimeException e) {
        return new long[]{0, 0, 0};
      }
    }

    static Map<String, Long> groups(long appPid) {
      Map<String, Long> g = new LinkedHashMap<>();
      g.put("postgres", 0L);
      g.put("app", 0L);
      g.put("bench", 0L);
      g.put("tools", 0L);
      long self = ProcessHandle.current().pid();
      try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString()
          .matches("\\d+"))) {
        for (Path p : procs) {
          long[] t = times(p.resolve("stat"));
          if (t == null) {
            continue;
          }
          long pid = Long.parseLong(p.getFileName().toString());
          String comm = comm(p.resolve("stat"));
          if (pid == self) {
            g.merge("bench", t[0] + t[1], Long::sum);
            g.merge("tools", t[2] + t[3], Long::sum); // children this JVM waited for
          } else if (pid == appPid) {
            g.merge("app", t[0] + t[1] + t[2] + t[3], Long::sum);
          } else if ("postgres".equals(comm)) {
            g.merge("postgres", t[0] + t[1] + t[2] + t[3], Long::sum); // the postmaster holds exited backends
          } else if (comm != null && comm.matches("node|pgbench|wrk|curl|dd|nginx|jstat|jcmd")) {
            g.merge("tools", t[0] + t[1], Long::sum); // still running
          }
        }
      } catch (IOException e) {
        // not Linux: no breakdown
      }
      return g;
    }

    private static String comm(Path stat) {
      try {
        String s = Files.readString(stat);
        return s.substring(s.indexOf('(') + 1, s.lastIndexOf(')'));
      } catch (IOException | RuntimeException e) {
        return null;
      }
    }

    /** utime, stime, cutime, cstime. */
    private static long[] times(Path stat) {
      try {
        String s = Files.readString(stat);
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        // after the comm: state(0) ppid(1) ... utime is field 14 of the line, i.e. index 11 here
        return new long[]{Long.parseLong(f[11]), Long.parseLong(f[12]), Long.parseLong(f[13]), Long.parseLong(f[14])};
      } catch (IOException | RuntimeException e) {
        return null;
      }
    }
  }
}
