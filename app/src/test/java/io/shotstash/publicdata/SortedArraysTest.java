package io.shotstash.publicdata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/** The sorted views over arrays answer as java.util's TreeMap and TreeSet do, and build the same trees. */
class SortedArraysTest {
  private static final String[] KEYS = {"ada", "bob", "cy", "dee", "eve"};
  private static final Integer[] VALUES = {1, 2, 3, 4, 5};

  private static TreeMap<String, Integer> expected() {
    TreeMap<String, Integer> m = new TreeMap<>();
    for (int i = 0; i < KEYS.length; i++) {
      m.put(KEYS[i], VALUES[i]);
    }
    return m;
  }

  @Test
  void theMapViewAnswersAsATreeMap() {
    SortedMap<String, Integer> view = SortedArrays.map(KEYS, VALUES, KEYS.length);
    TreeMap<String, Integer> tree = expected();
    assertThat(new ArrayList<>(view.entrySet())).isEqualTo(new ArrayList<>(tree.entrySet()));
    assertThat(view).isEqualTo(tree);
    assertThat(view.get("cy")).isEqualTo(3);
    assertThat(view.get("zed")).isNull();
    assertThat(view.containsKey("eve")).isTrue();
    assertThat(view.containsKey(7)).isFalse();
    assertThat(view.firstKey()).isEqualTo("ada");
    assertThat(view.lastKey()).isEqualTo("eve");
    for (String[] bounds : List.of(new String[]{"b", "d"}, new String[]{"bob", "dee"}, new String[]{"a", "z"},
        new String[]{"c", "c"}, new String[]{"zz", "zzz"})) {
      assertThat(view.subMap(bounds[0], bounds[1])).isEqualTo(tree.subMap(bounds[0], bounds[1]));
      assertThat(view.headMap(bounds[1])).isEqualTo(tree.headMap(bounds[1]));
      assertThat(view.tailMap(bounds[0])).isEqualTo(tree.tailMap(bounds[0]));
    }
    assertThat(view.subMap("bob", "dee").get("ada")).isNull(); // out of the range
    assertThatThrownBy(() -> view.subMap("x", "y").firstKey()).isInstanceOf(NoSuchElementException.class);
    assertThat(SortedArrays.map(KEYS, VALUES, 3)).isEqualTo(tree.headMap("dee"));
  }

  @Test
  void theSetViewAnswersAsATreeSet() {
    SortedSet<String> view = SortedArrays.set(KEYS, 1, 4);
    TreeSet<String> tree = new TreeSet<>(List.of("bob", "cy", "dee"));
    assertThat(new ArrayList<>(view)).isEqualTo(new ArrayList<>(tree));
    assertThat(view).hasSize(3).contains("cy").doesNotContain("ada", "eve");
    assertThat(view.first()).isEqualTo("bob");
    assertThat(view.last()).isEqualTo("dee");
    assertThat(view.subSet("c", "e")).isEqualTo(tree.subSet("c", "e"));
    assertThat(view.headSet("cy")).isEqualTo(tree.headSet("cy"));
    assertThat(view.tailSet("cz")).isEqualTo(tree.tailSet("cz"));
    assertThatThrownBy(() -> SortedArrays.set(KEYS, 2, 2).last()).isInstanceOf(NoSuchElementException.class);
  }

  @Test
  void pcollectionsBuildsTheSameTreesFromTheViews() {
    assertThat(TreePMap.fromSortedMap(SortedArrays.map(KEYS, VALUES, KEYS.length)))
        .isEqualTo(TreePMap.from(expected()));
    assertThat(TreePSet.fromSortedSet(SortedArrays.set(KEYS, 0, KEYS.length))).isEqualTo(TreePSet.from(List.of(KEYS)));
  }
}
