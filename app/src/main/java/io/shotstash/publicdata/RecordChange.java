package io.shotstash.publicdata;

import java.util.Objects;

/** One record written ({@code record} set) or removed ({@code record} null) by a commit. */
public record RecordChange(Sheet sheet, String key, Object record) {
  public RecordChange {
    Objects.requireNonNull(sheet, "sheet");
    Objects.requireNonNull(key, "key");
    if (record != null && !sheet.recordType().isInstance(record)) {
      throw new IllegalArgumentException(sheet + " holds " + sheet.recordType().getSimpleName());
    }
  }

  public static RecordChange put(Sheet sheet, String key, Object record) {
    return new RecordChange(sheet, key, Objects.requireNonNull(record, "record"));
  }

  public static RecordChange delete(Sheet sheet, String key) {
    return new RecordChange(sheet, key, null);
  }

  public boolean isDelete() {
    return record == null;
  }

  public String path() {
    return sheet.path(key);
  }
}
