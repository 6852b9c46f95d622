package io.shotstash.publicdata.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.lib.ObjectId;
import org.junit.jupiter.api.Test;

class PackLayersTest {
  private static ObjectId id(int i) {
    return ObjectId.fromString(String.format("%040x", i));
  }

  /** Adds a layer of {@code objects} up to commit {@code to}, and merges as the writer does. */
  private static void repack(PackLayers layers, int to, long objects) {
    List<PackLayers.Layer> merge = layers.toMergeWith(objects);
    if (merge.isEmpty()) {
      layers.add(new PackLayers.Layer(layers.packedUpTo(), id(to), objects, "pack-" + to));
    } else {
      long sum = merge.stream().mapToLong(PackLayers.Layer::objects).sum() + objects;
      layers.merged(merge, new PackLayers.Layer(merge.get(0).from(), id(to), sum, "merged-" + to));
    }
  }

  private static List<Long> sizes(PackLayers layers) {
    return layers.layers().stream().map(PackLayers.Layer::objects).toList();
  }

  @Test
  void nothingIsKnownBeforeTheFirstFullGc() {
    PackLayers layers = new PackLayers();
    assertThat(layers.known()).isFalse();
    assertThat(layers.packedUpTo()).isNull();
    assertThat(layers.fullGcDue()).isFalse();
    layers.fullGc(id(1), 1000);
    assertThat(layers.known()).isTrue();
    assertThat(layers.packedUpTo()).isEqualTo(id(1));
  }

  @Test
  void equalPacksMergeLikeTheBitsOfABinaryCounter() {
    PackLayers layers = new PackLayers();
    layers.fullGc(id(0), 1_000_000);
    List<List<Long>> seen = new ArrayList<>();
    for (int i = 1; i <= 8; i++) {
      repack(layers, i, 10);
      seen.add(sizes(layers));
    }
    assertThat(seen).containsExactly(List.of(10L), List.of(20L), List.of(20L, 10L), List.of(40L), List.of(40L, 10L),
        List.of(40L, 20L), List.of(40L, 20L, 10L), List.of(80L));
    assertThat(layers.packedUpTo()).isEqualTo(id(8));
    assertThat(layers.layers().get(0).from()).isEqualTo(id(0)); // the merged pack spans everything since the gc
  }

  @Test
  void packsStayFewAndEveryObjectIsRewrittenAFewTimes() {
    PackLayers layers = new PackLayers();
    layers.fullGc(id(0), Long.MAX_VALUE);
    long written = 0;
    int most = 0;
    for (int i = 1; i <= 1024; i++) {
      int before = layers.layers().size();
      repack(layers, i, 100);
      // a repack writes one pack: the new objects alone, or merged with the newest packs
      written += layers.layers().size() <= before ? layers.layers().get(layers.layers().size() - 1).objects() : 100;
      most = Math.max(most, layers.layers().size());
    }
    assertThat(most).isLessThanOrEqualTo(11); // log2(1024) + 1
    assertThat(written / (1024 * 100.0)).isLessThanOrEqualTo(12); // each object: its own pack, then ~log2 merges
    assertThat(layers.layeredObjects()).isEqualTo(102_400);
  }

  @Test
  void aFullGcIsDueOnceTheLayersHoldAsManyObjectsAsTheBase() {
    PackLayers small = new PackLayers();
    PackLayers big = new PackLayers();
    small.fullGc(id(0), 1_000);
    big.fullGc(id(0), 20_000);
    int smallAt = 0;
    int bigAt = 0;
    for (int i = 1; i <= 100 && (smallAt == 0 || bigAt == 0); i++) {
      repack(small, i, 250);
      repack(big, i, 250);
      if (smallAt == 0 && small.fullGcDue()) {
        smallAt = i;
      }
      if (bigAt == 0 && big.fullGcDue()) {
        bigAt = i;
      }
    }
    // the bigger the base, the longer until its gc: the gc's cost per commit stays the same
    assertThat(smallAt).isEqualTo(4);
    assertThat(bigAt).isEqualTo(80);
    small.fullGc(id(4), 2_000);
    assertThat(small.fullGcDue()).isFalse();
    assertThat(small.layers()).isEmpty();
  }

  @Test
  void layersFollowEachOtherAndMergesSpanWhatTheyReplace() {
    PackLayers layers = new PackLayers();
    layers.fullGc(id(0), 100);
    assertThatThrownBy(() -> layers.add(new PackLayers.Layer(id(5), id(6), 1, "x")))
        .isInstanceOf(IllegalArgumentException.class);
    layers.add(new PackLayers.Layer(id(0), id(1), 10, "a"));
    layers.add(new PackLayers.Layer(id(1), id(2), 10, "b"));
    List<PackLayers.Layer> merge = layers.toMergeWith(10);
    assertThat(merge).hasSize(2);
    assertThatThrownBy(() -> layers.merged(merge, new PackLayers.Layer(id(1), id(3), 30, "m")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> layers.merged(merge.subList(0, 1), new PackLayers.Layer(id(0), id(3), 30, "m")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new PackLayers.Layer(id(0), id(1), -1, "n")).isInstanceOf(IllegalArgumentException.class);
  }
}
