package io.shotstash.bus;

/** Event-bus addresses: one per service. Messages are JSON objects; the header {@code action} names the operation. */
public final class Addresses {
  private Addresses() {}

  /** The git writer: every change to public records. Exactly one consumer in the cluster. */
  public static final String PUBLICDATA_WRITE = "publicdata.write";

  /** Published after each commit: {@code {parent, commit, changes}}; every node's replica applies it. */
  public static final String PUBLICDATA_CHANGED = "publicdata.changed";

  /** The message header that names the operation. */
  public static final String ACTION = "action";
}
