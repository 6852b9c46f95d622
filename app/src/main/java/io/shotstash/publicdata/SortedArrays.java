package io.shotstash.publicdata;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;

/**
 * Read-only sorted views over arrays already in ascending order of their (unique) string keys.
 * pcollections builds a tree from a {@link SortedMap} or {@link SortedSet} in one linear pass
 * ({@code TreePMap.fromSortedMap}, {@code TreePSet.fromSortedSet}); these views give it sorted
 * arrays without first inserting them one by one into a {@code java.util.TreeMap}.
 */
final class SortedArrays {
  private SortedArrays() {}

  /** {@code keys[from, to)} as a sorted set; the keys must be ascending and distinct. */
  static SortedSet<String> set(String[] keys, int from, int to) {
    return new KeySet(keys, from, to);
  }

  /** The entries {@code keys[i] → values[i]} for i in {@code [0, size)}; the keys ascending and distinct. */
  static <V> SortedMap<String, V> map(String[] keys, V[] values, int size) {
    return new ArrayMap<>(keys, values, 0, size);
  }

  /** Where {@code key} would go in {@code keys[from, to)}: its index, or the first greater one. */
  private static int lowerBound(String[] keys, int from, int to, String key) {
    int at = Arrays.binarySearch(keys, from, to, key);
    return at >= 0 ? at : -at - 1;
  }

  private static final class KeySet extends AbstractSet<String> implements SortedSet<String> {
    private final String[] keys;
    private final int from;
    private final int to;

    KeySet(String[] keys, int from, int to) {
      this.keys = keys;
      this.from = from;
      this.to = to;
    }

    @Override
    public Iterator<String> iterator() {
      return new Iterator<>() {
        private int next = from;

        @Override
        public boolean hasNext() {
          return next < to;
        }

        @Override
        public String next() {
          if (next >= to) {
            throw new NoSuchElementException();
          }
          return keys[next++];
        }
      };
    }

    @Override
    public int size() {
      return to - from;
    }

    @Override
    public boolean contains(Object o) {
      return indexOf(o) >= 0;
    }

    /** The index of {@code o} in {@code keys}, or a negative number when it is not in this range. */
    int indexOf(Object o) {
      return o instanceof String s ? Arrays.binarySearch(keys, from, to, s) : -1;
    }

    @Override
    public Comparator<? super String> comparator() {
      return null; // natural order
    }

    @Override
    public SortedSet<String> subSet(String fromElement, String toElement) {
      return new KeySet(keys, lowerBound(keys, from, to, fromElement),
          Math.max(lowerBound(keys, from, to, fromElement), lowerBound(keys, from, to, toElement)));
    }

    @Override
    public SortedSet<String> headSet(String toElement) {
      return new KeySet(keys, from, lowerBound(keys, from, to, toElement));
    }

    @Override
    public SortedSet<String> tailSet(String fromElement) {
      return new KeySet(keys, lowerBound(keys, from, to, fromElement), to);
    }

    @Override
    public String first() {
      if (from >= to) {
        throw new NoSuchElementException();
      }
      return keys[from];
    }

    @Override
    public String last() {
      if (from >= to) {
        throw new NoSuchElementException();
      }
      return keys[to - 1];
    }
  }

  /** The entries over {@code range}: the key at index i maps to {@code values[i]}. */
  private static final class ArrayMap<V> extends AbstractMap<String, V> implements SortedMap<String, V> {
    private final KeySet range;
    private final V[] values;

    ArrayMap(String[] keys, V[] values, int from, int to) {
      this(new KeySet(keys, from, to), values);
    }

    private ArrayMap(KeySet range, V[] values) {
      this.range = range;
      this.values = values;
    }

    @Override
    public Set<Map.Entry<String, V>> entrySet() {
      return new AbstractSet<>() {
        @Override
        public Iterator<Map.Entry<String, V>> iterator() {
          return new Iterator<>() {
            private int next = range.from;

            @Override
            public boolean hasNext() {
              return next < range.to;
            }

            @Override
            public Map.Entry<String, V> next() {
              if (next >= range.to) {
                throw new NoSuchElementException();
              }
              int i = next++;
              return new SimpleImmutableEntry<>(range.keys[i], values[i]);
            }
          };
        }

        @Override
        public int size() {
          return range.size();
        }
      };
    }

    @Override
    public Set<String> keySet() {
      return range;
    }

    @Override
    public V get(Object key) {
      int at = range.indexOf(key);
      return at >= 0 ? values[at] : null;
    }

    @Override
    public boolean containsKey(Object key) {
      return range.contains(key);
    }

    @Override
    public Comparator<? super String> comparator() {
      return null; // natural order
    }

    @Override
    public SortedMap<String, V> subMap(String fromKey, String toKey) {
      return new ArrayMap<>((KeySet) range.subSet(fromKey, toKey), values);
    }

    @Override
    public SortedMap<String, V> headMap(String toKey) {
      return new ArrayMap<>((KeySet) range.headSet(toKey), values);
    }

    @Override
    public SortedMap<String, V> tailMap(String fromKey) {
      return new ArrayMap<>((KeySet) range.tailSet(fromKey), values);
    }

    @Override
    public String firstKey() {
      return range.first();
    }

    @Override
    public String lastKey() {
      return range.last();
    }
  }
}
