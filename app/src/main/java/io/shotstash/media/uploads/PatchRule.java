package io.shotstash.media.uploads;

/**
 * Whether a PATCH may write, decided from the upload's durable offset (read under the upload's
 * lock), its length, the {@code Upload-Offset} the client sent and the body length it declared.
 * Pure: the routes and the tests call it the same way.
 */
public final class PatchRule {
  private PatchRule() {}

  /** The decision. */
  public sealed interface Decision {}

  /** Write at the current offset, at most {@code maxBytes} (what is left of the upload). */
  public record Accept(long maxBytes) implements Decision {}

  /** The client's offset is not the upload's: 409, and the client asks HEAD where to go on. */
  public record Conflict(String message) implements Decision {}

  /** The declared body runs past the upload's length: 413, nothing written. */
  public record TooLarge(String message) implements Decision {}

  /**
   * @param current the upload's durable offset
   * @param length its {@code Upload-Length}
   * @param claimed the request's {@code Upload-Offset} (a valid number; the route refuses others first)
   * @param declared the request's {@code Content-Length}, or -1 for a chunked body
   */
  public static Decision check(long current, long length, long claimed, long declared) {
    if (claimed != current) {
      return new Conflict("Upload-Offset is " + claimed + " but the upload is at " + current
          + ": ask HEAD for the offset and go on from there");
    }
    long left = length - current;
    if (declared > left) {
      return new TooLarge("The body (" + declared + " bytes) runs past the upload's length: " + left
          + " bytes are left");
    }
    return new Accept(left);
  }
}
