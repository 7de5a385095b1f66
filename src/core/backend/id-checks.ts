// Session ids, request ids (permission and question requests) and directories are checked before
// they go into a request. Ids are opaque to the spec, but they come from the server's own lists
// (untrusted) and go into a URL path: only URL-unreserved characters are accepted (so never "/",
// "\\", "%", "?", "#", whitespace or control characters), the first is not "." (so never "." or
// ".."), at most 255 characters; the segment is percent-encoded anyway.

const PATH_ID = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,254}$/;

export function isValidSessionId(id: unknown): boolean {
  return typeof id === 'string' && PATH_ID.test(id);
}

/** A permission or question request id: the same rules as a session id. */
export function isValidRequestId(id: unknown): boolean {
  return typeof id === 'string' && PATH_ID.test(id);
}

/** Null when acceptable, otherwise why not. */
export function directoryProblem(directory: unknown): string | null {
  if (typeof directory !== 'string' || directory.trim() === '') return 'directory must be a non-empty string';
  if (directory.includes('\0')) return 'directory must not contain NUL';
  if (directory.length > 4096) return 'directory is too long';
  return null;
}

/** One encoded path segment. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
