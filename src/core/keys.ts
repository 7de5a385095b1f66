// Every key and tree node id is built and parsed here, and nowhere else. A key joins its parts
// with NUL (a character no backend key, directory, session id or title may carry), so a key is
// never ambiguous and `splitKey` gives the parts back. A tree node id is a short prefix naming
// its kind, a colon, and the key of what it shows; `parseNodeId` gives both back.

const SEP = '\u0000';

/** A key of several parts (a comparison signature, a map key): the parts joined with NUL. */
export function joinKey(...parts: readonly string[]): string {
  return parts.join(SEP);
}

export function splitKey(key: string): string[] {
  return key.split(SEP);
}

// ---- sessions -----------------------------------------------------------------------------------

/** A session across every backend: backend key, working directory, session id. */
export function rowKey(backendKey: string, directory: string, sessionId: string): string {
  return joinKey(backendKey, directory, sessionId);
}

export function parseRowKey(key: string): { backendKey: string; directory: string; sessionId: string } | null {
  const parts = splitKey(key);
  if (parts.length !== 3) return null;
  const [backendKey, directory, sessionId] = parts;
  return { backendKey, directory, sessionId };
}

/** A session within one backend (the monitor's per-backend maps): directory and session id. */
export function directorySessionKey(directory: string, sessionId: string): string {
  return joinKey(directory, sessionId);
}

/** A working directory of a backend. */
export function directoryKey(backendKey: string, directory: string): string {
  return joinKey(backendKey, directory);
}

/** One verdict of one session: the session, the verdict, the action and the newest message it was read on. */
export function verdictKey(row: {
  key: string;
  verdict: string | null;
  action: string | null;
  evidence: { latest: { newestId: string | null } };
}): string {
  return joinKey(row.key, row.verdict ?? 'none', row.action ?? 'none', verdictMessage(row));
}

/** The newest message part of a row's verdict key. */
export function verdictMessage(row: { evidence: { latest: { newestId: string | null } } }): string {
  return row.evidence.latest.newestId ?? 'no-message';
}

/** The session (row key) and the newest message id a verdict key was read on, or null when it is not one. */
export function parseVerdictKey(key: string): { rowKey: string; newestId: string } | null {
  const parts = splitKey(key);
  if (parts.length !== 6) return null;
  return { rowKey: joinKey(parts[0], parts[1], parts[2]), newestId: parts[5] };
}

/** One completion report of one session: the session, ticket, status and the message it came in. */
export function reportKey(row: {
  key: string;
  report: { ticket: string; status: string } | null;
  evidence: { latest: { newestId: string | null } };
}): string | null {
  return row.report ? joinKey(row.key, row.report.ticket, row.report.status, row.evidence.latest.newestId ?? '') : null;
}

// ---- tree node ids ------------------------------------------------------------------------------

/** The kinds of tree node, with the prefix each id starts with. */
const NODE_PREFIX = {
  // Sessions view
  backend: 'b',
  directory: 'd',
  session: 's',
  backendError: 'e',
  loading: 'l',
  noSessions: 'n',
  truncated: 't',
  // Providers view
  providerBackend: 'pb',
  providersError: 'pe',
  providersLoading: 'pl',
  allFree: 'pa',
  provider: 'pp',
  noProvider: 'pn',
  // Port Analysis view
  port: 'port',
  page: 'page',
  chunk: 'chunk',
  fid: 'fid',
  analysisError: 'error',
} as const;

export type NodeKind = keyof typeof NODE_PREFIX;

const KIND_OF_PREFIX = new Map<string, NodeKind>(
  Object.entries(NODE_PREFIX).map(([kind, prefix]) => [prefix, kind as NodeKind]),
);

/** The id of a tree node of `kind` showing the thing whose key parts are `parts`. */
export function nodeId(kind: NodeKind, ...parts: readonly string[]): string {
  return parts.length === 0 ? NODE_PREFIX[kind] : `${NODE_PREFIX[kind]}:${joinKey(...parts)}`;
}

export function parseNodeId(id: string): { kind: NodeKind; key: string } | null {
  const colon = id.indexOf(':');
  const kind = KIND_OF_PREFIX.get(colon < 0 ? id : id.slice(0, colon));
  return kind ? { kind, key: colon < 0 ? '' : id.slice(colon + 1) } : null;
}

/** The Sessions view node of a session row. */
export function sessionNodeId(rowKey: string): string {
  return nodeId('session', rowKey);
}

/** The row key a session node shows, or null when the id is not a session node's. */
export function rowKeyOfNode(id: string): string | null {
  const parsed = parseNodeId(id);
  return parsed?.kind === 'session' ? parsed.key : null;
}

// ---- backends -----------------------------------------------------------------------------------

/**
 * A backend: its normalized base URL (src/core/config/backends.ts normalizeBaseUrl) with its
 * trailing slash, e.g. `http://127.0.0.1:4096/`: the key of its rows, credentials and quota marks.
 */
export function backendKey(baseUrl: string): string {
  return baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
}
