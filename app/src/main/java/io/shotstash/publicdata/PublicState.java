package io.shotstash.publicdata;

import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import java.util.TreeMap;
import org.pcollections.PMap;
import org.pcollections.PSet;
import org.pcollections.TreePMap;
import org.pcollections.TreePSet;

/**
 * The whole public data repository at one commit, in memory, immutable. Each sheet is a persistent
 * sorted map from record key to record plus the secondary indexes the sheet declares, so applying a
 * commit costs O(changes · log n) and readers on any thread keep a consistent snapshot for as long
 * as they hold it. Loading a whole repository ({@link #of}) builds each tree in one linear pass
 * from sorted input instead of n single inserts. Reads never touch git.
 */
public final class PublicState {
  private final String commit;
  private final Map<Sheet, Table> tables;

  private PublicState(String commit, Map<Sheet, Table> tables) {
    this.commit = commit;
    this.tables = tables;
  }

  /** No records at all (an unborn repository). */
  public static PublicState empty() {
    Map<Sheet, Table> tables = new EnumMap<>(Sheet.class);
    for (Sheet s : Sheet.values()) {
      tables.put(s, Table.EMPTY);
    }
    return new PublicState(null, Collections.unmodifiableMap(tables));
  }

  /** The commit this state is at (hex), or null when the repository has none. */
  public String commit() {
    return commit;
  }

  /**
   * The state of {@code commit} holding exactly {@code records} (puts; a later put of the same key
   * wins): what loading a whole repository makes.
   */
  public static PublicState of(String commit, List<RecordChange> records) {
    Map<Sheet, Table.Builder> builders = new EnumMap<>(Sheet.class);
    for (RecordChange c : records) {
      if (c.isDelete()) {
        throw new IllegalArgumentException("a whole state holds records, not deletions: " + c.sheet() + "/" + c.key());
      }
      builders.computeIfAbsent(c.sheet(), sheet -> new Table.Builder()).put(c.key(), c.record());
    }
    // the sheets side by side on the fork-join pool (people, the largest, alone on one thread)
    Sheet[] sheets = Sheet.values();
    Table[] built = new Table[sheets.length];
    IntStream.range(0, sheets.length).parallel().forEach(i -> {
      Table.Builder b = builders.get(sheets[i]);
      built[i] = b == null ? Table.EMPTY : b.build(sheets[i]);
    });
    Map<Sheet, Table> tables = new EnumMap<>(Sheet.class);
    for (Sheet s : sheets) {
      tables.put(s, built[s.ordinal()]);
    }
    return new PublicState(commit, Collections.unmodifiableMap(tables));
  }

  /** This state with the changes of {@code newCommit} applied. */
  public PublicState apply(String newCommit, List<RecordChange> changes) {
    Map<Sheet, Table> next = new EnumMap<>(tables);
    for (RecordChange c : changes) {
      Table t = next.get(c.sheet());
      next.put(c.sheet(), c.isDelete() ? t.without(c.sheet(), c.key()) : t.with(c.sheet(), c.key(), c.record()));
    }
    return new PublicState(newCommit, Collections.unmodifiableMap(next));
  }

  /** The record under {@code key}, or null. */
  public <R> R get(Sheet sheet, String key, Class<R> type) {
    return type.cast(tables.get(sheet).byKey.get(key));
  }

  /** Every record of a sheet (no order). */
  public <R> List<R> all(Sheet sheet, Class<R> type) {
    Collection<Object> values = tables.get(sheet).byKey.values();
    List<R> out = new ArrayList<>(values.size());
    for (Object o : values) {
      out.add(type.cast(o));
    }
    return out;
  }

  /** Every record of a sheet with its key, in key order. */
  public Set<Map.Entry<String, Object>> entries(Sheet sheet) {
    return Collections.unmodifiableSet(tables.get(sheet).byKey.entrySet());
  }

  /** Every key of a sheet (no order). */
  public Collection<String> keys(Sheet sheet) {
    return Collections.unmodifiableSet(tables.get(sheet).byKey.keySet());
  }

  /**
   * An identity token for one sheet's records: the same object ({@code ==}) in two states means no
   * change to that sheet was applied between them. For caches of views derived from one sheet.
   */
  public Object version(Sheet sheet) {
    return tables.get(sheet);
  }

  /** How many records the state holds, all sheets together. */
  public int records() {
    int n = 0;
    for (Table t : tables.values()) {
      n += t.byKey.size();
    }
    return n;
  }

  public int size(Sheet sheet) {
    return tables.get(sheet).byKey.size();
  }

  /** Records whose index {@code index} has {@code value}. */
  public <R> List<R> find(Sheet sheet, String index, String value, Class<R> type) {
    Table t = tables.get(sheet);
    PSet<String> keys = t.keysFor(index, value);
    List<R> out = new ArrayList<>(keys.size());
    for (String k : keys) {
      out.add(type.cast(t.byKey.get(k)));
    }
    return out;
  }

  /** Keys of the records whose index {@code index} has {@code value}. */
  public Collection<String> findKeys(Sheet sheet, String index, String value) {
    return Collections.unmodifiableSet(tables.get(sheet).keysFor(index, value));
  }

  public <R> Optional<R> findOne(Sheet sheet, String index, String value, Class<R> type) {
    List<R> found = find(sheet, index, value, type);
    return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
  }

  // ---- people, the records nearly every rule reads ----

  /** The person whose slug matches case-insensitively. */
  public Optional<Person> personBySlug(String slug) {
    return slug == null ? Optional.empty()
        : findOne(Sheet.PEOPLE, "slug", slug.toLowerCase(Locale.ROOT), Person.class);
  }

  public Optional<Person> personById(String id) {
    return id == null ? Optional.empty() : findOne(Sheet.PEOPLE, "id", id, Person.class);
  }

  /** Whether an administrator who is not deactivated exists. */
  public boolean hasActiveAdministrator() {
    return countActive(AccountLevel.ADMINISTRATOR) > 0;
  }

  /** Whether any administrator record exists, active or not: first-run setup is done. */
  public boolean setupDone() {
    return !tables.get(Sheet.PEOPLE).keysFor("level", AccountLevel.ADMINISTRATOR.wire()).isEmpty();
  }

  public int countActive(AccountLevel level) {
    return tables.get(Sheet.PEOPLE).keysFor("activeLevel", level.wire()).size();
  }

  /** One sheet: records by key, and index name → value → keys. */
  private static final class Table {
    static final Table EMPTY = new Table(TreePMap.empty(), TreePMap.empty());

    final PMap<String, Object> byKey;
    final PMap<String, PMap<String, PSet<String>>> indexes;

    Table(PMap<String, Object> byKey, PMap<String, PMap<String, PSet<String>>> indexes) {
      this.byKey = byKey;
      this.indexes = indexes;
    }

    PSet<String> keysFor(String index, String value) {
      PMap<String, PSet<String>> idx = indexes.get(index);
      PSet<String> keys = idx == null || value == null ? null : idx.get(value);
      return keys == null ? TreePSet.empty() : keys;
    }

    Table with(Sheet sheet, String key, Object record) {
      Table base = byKey.containsKey(key) ? without(sheet, key) : this;
      PMap<String, PMap<String, PSet<String>>> idx = base.indexes;
      for (Sheet.Index index : sheet.indexes()) {
        String value = index.key().apply(key, record);
        if (value != null) {
          PMap<String, PSet<String>> byValue = idx.getOrDefault(index.name(), TreePMap.empty());
          PSet<String> keys = byValue.getOrDefault(value, TreePSet.empty());
          idx = idx.plus(index.name(), byValue.plus(value, keys.plus(key)));
        }
      }
      return new Table(base.byKey.plus(key, record), idx);
    }

    Table without(Sheet sheet, String key) {
      Object old = byKey.get(key);
      if (old == null) {
        return this;
      }
      PMap<String, PMap<String, PSet<String>>> idx = indexes;
      for (Sheet.Index index : sheet.indexes()) {
        String value = index.key().apply(key, old);
        PMap<String, PSet<String>> byValue = value == null ? null : idx.get(index.name());
        if (byValue != null && byValue.containsKey(value)) {
          PSet<String> keys = byValue.get(value).minus(key);
          idx = idx.plus(index.name(), keys.isEmpty() ? byValue.minus(value) : byValue.plus(value, keys));
        }
      }
      return new Table(byKey.minus(key), idx);
    }

    /**
     * Collects a whole sheet, sorts it once, and makes each tree in one pass from the sorted arrays
     * ({@link SortedArrays}): no record is inserted into a tree one at a time.
     */
    static final class Builder {
      private record Entry(String key, Object record) {}

      private record Pair(String value, String key) {}

      private final List<Entry> entries = new ArrayList<>();

      void put(String key, Object record) {
        entries.add(new Entry(key, record));
      }

      Table build(Sheet sheet) {
        Entry[] sorted = entries.toArray(new Entry[0]);
        Arrays.sort(sorted, Comparator.comparing(Entry::key)); // stable: of two puts of one key, the later stays last
        String[] keys = new String[sorted.length];
        Object[] records = new Object[sorted.length];
        int n = 0;
        for (int i = 0; i < sorted.length; i++) {
          if (i + 1 < sorted.length && sorted[i + 1].key().equals(sorted[i].key())) {
            continue; // a later put of the same key wins
          }
          keys[n] = sorted[i].key();
          records[n++] = sorted[i].record();
        }
        TreeMap<String, PMap<String, PSet<String>>> indexes = new TreeMap<>();
        for (Sheet.Index index : sheet.indexes()) {
          List<Pair> pairs = new ArrayList<>(n);
          for (int i = 0; i < n; i++) {
            String value = index.key().apply(keys[i], records[i]);
            if (value != null) {
              pairs.add(new Pair(value, keys[i]));
            }
          }
          if (pairs.isEmpty()) {
            continue;
          }
          pairs.sort(Comparator.comparing(Pair::value)); // stable: the keys of one value stay ascending
          String[] pairKeys = new String[pairs.size()];
          String[] values = new String[pairs.size()];
          PSet<?>[] sets = new PSet<?>[pairs.size()];
          int distinct = 0;
          for (int start = 0; start < pairs.size();) {
            int end = start + 1;
            while (end < pairs.size() && pairs.get(end).value().equals(pairs.get(start).value())) {
              end++;
            }
            for (int i = start; i < end; i++) {
              pairKeys[i] = pairs.get(i).key();
            }
            values[distinct] = pairs.get(start).value();
            sets[distinct++] = end - start == 1 ? TreePSet.singleton(pairKeys[start])
                : TreePSet.fromSortedSet(SortedArrays.set(pairKeys, start, end));
            start = end;
          }
          @SuppressWarnings("unchecked")
          PSet<String>[] typed = (PSet<String>[]) sets;
          indexes.put(index.name(), TreePMap.fromSortedMap(SortedArrays.map(values, typed, distinct)));
        }
        return new Table(TreePMap.fromSortedMap(SortedArrays.map(keys, records, n)), TreePMap.fromSortedMap(indexes));
      }
    }
  }
}
