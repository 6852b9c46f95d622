package io.shotstash.publicdata;

import io.shotstash.publicdata.records.AccountLevel;
import io.shotstash.publicdata.records.Person;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.pcollections.HashTreePMap;
import org.pcollections.HashTreePSet;
import org.pcollections.PMap;
import org.pcollections.PSet;

/**
 * The whole public data repository at one commit, in memory, immutable. Each sheet is a persistent
 * map from record key to record plus the secondary indexes the sheet declares, so applying a commit
 * costs O(changes · log n) and readers on any thread keep a consistent snapshot for as long as they
 * hold it. Reads never touch git.
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

  /** Every key of a sheet (no order). */
  public Collection<String> keys(Sheet sheet) {
    return Collections.unmodifiableSet(tables.get(sheet).byKey.keySet());
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
    static final Table EMPTY = new Table(HashTreePMap.empty(), HashTreePMap.empty());

    final PMap<String, Object> byKey;
    final PMap<String, PMap<String, PSet<String>>> indexes;

    Table(PMap<String, Object> byKey, PMap<String, PMap<String, PSet<String>>> indexes) {
      this.byKey = byKey;
      this.indexes = indexes;
    }

    PSet<String> keysFor(String index, String value) {
      PMap<String, PSet<String>> idx = indexes.get(index);
      PSet<String> keys = idx == null || value == null ? null : idx.get(value);
      return keys == null ? HashTreePSet.empty() : keys;
    }

    Table with(Sheet sheet, String key, Object record) {
      Table base = byKey.containsKey(key) ? without(sheet, key) : this;
      PMap<String, PMap<String, PSet<String>>> idx = base.indexes;
      for (Sheet.Index index : sheet.indexes()) {
        String value = index.key().apply(key, record);
        if (value != null) {
          PMap<String, PSet<String>> byValue = idx.getOrDefault(index.name(), HashTreePMap.empty());
          PSet<String> keys = byValue.getOrDefault(value, HashTreePSet.empty());
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
  }
}
