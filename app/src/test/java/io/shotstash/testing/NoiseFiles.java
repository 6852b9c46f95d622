package io.shotstash.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;

/** Large files of seeded noise for upload tests, and the SHA-256 that shows one arrived byte for byte. */
public final class NoiseFiles {
  private NoiseFiles() {}

  /** Writes {@code size} bytes of noise seeded by {@code seed} to {@code file} (made or replaced), a MiB at a time. */
  public static Path write(Path file, long size, long seed) throws IOException {
    Random random = new Random(seed);
    byte[] block = new byte[1 << 20];
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long left = size; left > 0; left -= block.length) {
        random.nextBytes(block);
        out.write(block, 0, (int) Math.min(block.length, left));
      }
    }
    return file;
  }

  /** The file's SHA-256 in lower-case hex, read as a stream. */
  public static String sha256(Path file) throws Exception {
    MessageDigest digest = MessageDigest.getInstance("SHA-256");
    try (InputStream in = new DigestInputStream(Files.newInputStream(file), digest)) {
      in.transferTo(OutputStream.nullOutputStream());
    }
    return HexFormat.of().formatHex(digest.digest());
  }
}
