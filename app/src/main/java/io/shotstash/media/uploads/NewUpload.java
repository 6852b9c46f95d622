package io.shotstash.media.uploads;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What a tus creation ({@code POST /api/v1/uploads}) asks for, checked: the length from {@code
 * Upload-Length}, and from {@code Upload-Metadata} the file's name ({@code filename}, or {@code
 * name}), its media type ({@code filetype}, or {@code type}; {@code application/octet-stream} when
 * neither) and the folder it goes into ({@code folderId}). Names and types follow the plain
 * upload's rules ({@code POST /api/v1/files}). Pure.
 */
public record NewUpload(String name, String mediaType, String folderId, long length) {
  private static final Pattern MEDIA_TYPE = Pattern.compile("[a-z0-9][a-z0-9.+-]*/[a-z0-9][a-z0-9.+-]*");
  private static final Pattern UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  static final String DEFAULT_TYPE = "application/octet-stream";

  /** Why a creation is refused: the HTTP status, the error code, a message and field reasons (or none). */
  public static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String code;
    private final transient Map<String, String> fields;

    Refused(int status, String code, String message, Map<String, String> fields) {
      super(message, null, false, false);
      this.status = status;
      this.code = code;
      this.fields = fields == null ? null : Map.copyOf(fields);
    }

    public int status() {
      return status;
    }

    public String code() {
      return code;
    }

    /** Field → reason for a 422; null otherwise. */
    public Map<String, String> fields() {
      return fields;
    }
  }

  /**
   * Checks a creation in this order: the length (400 when missing or not a number, 413 over {@code
   * maxBytes}), the metadata (422 naming each bad field), then the folder: missing is 422, not an id
   * is 404 as an unknown folder is (the route looks that up next).
   */
  public static NewUpload check(String uploadLength, String uploadMetadata, long maxBytes) throws Refused {
    long length = TusHeaders.number(uploadLength);
    if (length < 0) {
      throw new Refused(400, "bad_request",
          "Upload-Length must be the file's size in bytes (deferred lengths are not supported)", null);
    }
    if (length > maxBytes) {
      throw new Refused(413, "body_too_large", "Uploads are limited to " + (maxBytes >> 20) + " MB", null);
    }
    UploadMetadata metadata;
    try {
      metadata = UploadMetadata.parse(uploadMetadata);
    } catch (UploadMetadata.Invalid e) {
      throw new Refused(422, "validation_failed", "Upload-Metadata is not valid",
          Map.of("Upload-Metadata", e.getMessage()));
    }
    Map<String, String> problems = new LinkedHashMap<>();
    String name = metadata.first("filename", "name");
    if (!isFileName(name)) {
      problems.put("filename", "must be a file name of 1 to 255 characters, without / or control characters");
    }
    String rawType = metadata.first("filetype", "type");
    String type = rawType == null || rawType.isBlank() ? DEFAULT_TYPE
        : rawType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    if (!MEDIA_TYPE.matcher(type).matches()) {
      problems.put("filetype", "must be the file's media type, e.g. video/mp4");
    }
    String folderId = metadata.get("folderId");
    if (folderId == null || folderId.isEmpty()) {
      problems.put("folderId", "required: create a folder first (GraphQL createFolder) and pass its id");
    }
    if (!problems.isEmpty()) {
      throw new Refused(422, "validation_failed", "The upload's metadata is not valid", problems);
    }
    if (!UUID.matcher(folderId).matches()) {
      throw new Refused(404, "not_found", "No such folder", null);
    }
    return new NewUpload(name.strip(), type, folderId, length);
  }

  /** The plain upload's rule for {@code X-File-Name}. */
  static boolean isFileName(String name) {
    return name != null && !name.isBlank() && name.length() <= 255 && name.chars().noneMatch(Character::isISOControl)
        && !name.contains("/") && !name.contains("\\");
  }
}
