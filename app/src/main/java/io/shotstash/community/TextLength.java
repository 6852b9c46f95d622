package io.shotstash.community;

/** How long a text field may be, counted after leading and trailing white space is stripped. Pure. */
public record TextLength(int min, int max) {

  /** Why {@code stripped} does not fit, or null when it does. */
  public String problem(String stripped) {
    return stripped.length() < min || stripped.length() > max ? "must be " + min + " to " + max + " characters" : null;
  }
}
