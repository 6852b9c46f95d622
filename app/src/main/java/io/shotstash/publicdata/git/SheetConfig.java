package io.shotstash.publicdata.git;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The gitsheets configuration of the data repository: one {@code .gitsheets/<sheet>.toml} file per
 * sheet whose {@code [gitsheet]} table names the sheet's root folder and the path template of its
 * records. {@link DataRepository} writes the files this builds when a sheet's is missing, and reads
 * the templates back with Jackson's TOML parser. Pure.
 */
final class SheetConfig {
  /** Folder holding one {@code <sheet>.toml} configuration file per sheet. */
  static final String FOLDER = DataRepository.SHEETS_FOLDER;

  private SheetConfig() {}

  /** The {@code .gitsheets/<sheet>.toml} file for each sheet, validated, in sheet-name order. */
  static Map<String, PathChange> files(Map<String, String> sheetTemplates) {
    Map<String, PathChange> files = new LinkedHashMap<>();
    new TreeMap<>(Objects.requireNonNull(sheetTemplates, "sheetTemplates")).forEach((sheet, template) -> {
      String path = FOLDER + "/" + sheet + ".toml";
      if (sheet.isEmpty() || sheet.contains("/")) {
        throw new IllegalArgumentException("invalid sheet name: '" + sheet + "'");
      }
      files.put(path, PathChange.put(path, text(sheet, template).getBytes(StandardCharsets.UTF_8)));
    });
    return files;
  }

  /** The exact configuration file for a sheet; values are TOML literal (single-quoted) strings. */
  static String text(String sheet, String template) {
    requireLiteralStringSafe(sheet);
    requireLiteralStringSafe(Objects.requireNonNull(template, "template of " + sheet));
    return "[gitsheet]\nroot = '" + sheet + "'\npath = '" + template + "'\n";
  }

  /** A TOML literal string cannot contain a single quote or control characters other than tab. */
  private static void requireLiteralStringSafe(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\'' || c == 0x7f || (c < 0x20 && c != '\t')) {
        throw new IllegalArgumentException("cannot store in a TOML literal string: '" + value + "'");
      }
    }
  }

  /**
   * Reads the sheet file of {@code sheet} ({@code toml}) into {@code templates}: its root (the
   * sheet's name when it has none) mapped to its path template.
   *
   * @throws IllegalStateException if the file is not valid TOML or has no {@code path}
   */
  static void read(Map<String, String> templates, String sheet, String toml) {
    Map<String, String> config;
    try {
      config = parseGitsheetSection(toml);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(FOLDER + "/" + sheet + ".toml: " + e.getMessage(), e);
    }
    String path = config.get("path");
    if (path == null) {
      throw new IllegalStateException(FOLDER + "/" + sheet + ".toml has no [gitsheet] path");
    }
    templates.put(config.getOrDefault("root", sheet), path);
  }

  /**
   * The string values of the {@code [gitsheet]} table of a sheet file, read with Jackson's TOML
   * parser; other values (sub-tables such as {@code [gitsheet.fields]}, numbers) are ignored.
   *
   * @throws IllegalArgumentException if {@code toml} is not valid TOML
   */
  static Map<String, String> parseGitsheetSection(String toml) {
    JsonNode gitsheet;
    try {
      gitsheet = SheetToml.MAPPER.readTree(toml).path("gitsheet");
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not valid TOML: " + e.getOriginalMessage(), e);
    }
    Map<String, String> values = new HashMap<>();
    for (Map.Entry<String, JsonNode> entry : gitsheet.properties()) {
      if (entry.getValue().isTextual()) {
        values.put(entry.getKey(), entry.getValue().textValue());
      }
    }
    return values;
  }

  /** Made on first use: only reading the sheet configuration needs it. */
  private static final class SheetToml {
    static final TomlMapper MAPPER = new TomlMapper();
  }
}
