package io.shotstash.publicdata.git;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.eclipse.jgit.lib.ObjectId;

/**
 * When {@link PackMaintenance} merges its packs and when it runs a full gc: geometric repacking, as
 * {@code git repack --geometric=2} keeps big repositories cheap to maintain.
 *
 * <p>The <em>base</em> is what the last full gc packed. After it, each repack writes a
 * <em>layer</em>: one pack of the objects reachable from the head but not from the previous
 * layer's head. Layers are merged like the digits of a binary counter: whenever the layer below the
 * new commits' objects holds fewer than {@value #FACTOR} times as many objects as those above it
 * together, they are written as one pack (objects reachable from the head but not from the oldest
 * merged layer's start) instead of a pack for the new commits alone. So the number of packs grows with the logarithm of the commits since the full gc, and an
 * object is rewritten about that many times.
 *
 * <p>A full gc rewrites the whole repository, so it runs only once the layers together hold as many
 * objects as the base: the bigger the repository, the longer between two full gcs, and its cost per
 * commit stays that of packing each new object about twice, whatever the repository's size (a
 * fixed "every tenth repack" made it grow with the repository). Pure bookkeeping: no I/O here.
 */
final class PackLayers {
  /** A layer must hold at least this many times the objects of the layers above it, or they merge. */
  static final int FACTOR = 2;

  /** A pack this writer made: the objects reachable from {@code to} but not from {@code from}. */
  record Layer(ObjectId from, ObjectId to, long objects, String packName) {
    Layer {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(to, "to");
      if (objects < 0) {
        throw new IllegalArgumentException("objects must not be negative: " + objects);
      }
    }
  }

  private ObjectId baseHead;
  private long baseObjects = -1;
  /** Oldest first. */
  private final List<Layer> layers = new ArrayList<>();

  /** False until the first full gc of this writer: what the pack files hold is not known before. */
  boolean known() {
    return baseObjects >= 0 && baseHead != null;
  }

  /** A full gc packed {@code objects} objects, everything reachable from {@code head}. */
  void fullGc(ObjectId head, long objects) {
    baseHead = head;
    baseObjects = objects;
    layers.clear();
  }

  /** Everything reachable from this commit is in a pack already (null: not known). */
  ObjectId packedUpTo() {
    return layers.isEmpty() ? baseHead : layers.get(layers.size() - 1).to();
  }

  void add(Layer layer) {
    if (!layer.from().equals(packedUpTo())) {
      throw new IllegalArgumentException("a layer starts where the last one ended: " + layer.from().name()
          + " is not " + (packedUpTo() == null ? "null" : packedUpTo().name()));
    }
    layers.add(layer);
  }

  /** The layers together hold as many objects as the base: time for a full gc. */
  boolean fullGcDue() {
    return fullGcDueWith(0);
  }

  /** With a new layer of {@code fresh} objects, the layers would hold as many objects as the base. */
  boolean fullGcDueWith(long fresh) {
    return known() && layeredObjects() + fresh >= baseObjects;
  }

  long baseObjects() {
    return baseObjects;
  }

  long layeredObjects() {
    return layers.stream().mapToLong(Layer::objects).sum();
  }

  List<Layer> layers() {
    return List.copyOf(layers);
  }

  /**
   * The newest layers a new layer of {@code fresh} objects merges with (oldest first; empty: it
   * stands on its own): starting from the new one, the layer below joins while it holds fewer than
   * {@value #FACTOR} times the objects of those already taken. The writer then writes one pack for
   * all of them and the new commits, instead of a pack it would replace at once.
   */
  List<Layer> toMergeWith(long fresh) {
    int first = layers.size();
    long above = fresh;
    while (first > 0 && layers.get(first - 1).objects() < FACTOR * above) {
      first--;
      above += layers.get(first).objects();
    }
    return List.copyOf(layers.subList(first, layers.size()));
  }

  /**
   * The newest {@code merged.size()} layers were written again, with the commits since the last of
   * them, as {@code into} (which starts where the oldest of them started).
   */
  void merged(List<Layer> merged, Layer into) {
    int from = layers.size() - merged.size();
    if (merged.isEmpty() || from < 0 || !layers.subList(from, layers.size()).equals(merged)) {
      throw new IllegalArgumentException("only the newest layers merge");
    }
    if (!into.from().equals(merged.get(0).from())) {
      throw new IllegalArgumentException("a merged layer starts where the layers it replaces started");
    }
    layers.subList(from, layers.size()).clear();
    layers.add(into);
  }
}
