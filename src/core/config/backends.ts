// The one backend-config normalizer: an entry of the editor's `sessionOps.backends`, of the watch
// config's `backends:` or the CLI's --base-url/--directory becomes one BackendConfig (URL checked
// and normalized, its key from src/core/keys.ts, default name and directories, the surface hint,
// where its password comes from) or a problem naming the field. Each host words the problem in its
// own place (the editor by list index, the watch config by key path and text range).
import { DEFAULT_USERNAME } from '../backend/credentials';
import { isSurface } from '../backend/engines';
import { describeError } from '../error-message';
import { backendKey } from '../keys';
import type { Surface } from '../model';

/**
 * Where a backend's password comes from (never the password itself). The editor keeps the user
 * and password in its secret storage under the backend's key; the watch config names an
 * environment variable or a file; the CLI reads SESSION_OPS_PASSWORD.
 */
export type BackendAuth =
  | { from: 'secret-store' }
  | { from: 'env'; username: string; variable: string }
  | { from: 'file'; username: string; file: string }
  | { from: 'none' };

export interface BackendConfig {
  /** Stable key: the normalized base URL with its trailing slash (src/core/keys.ts backendKey). */
  key: string;
  name: string;
  baseUrl: string;
  directories: string[];
  /** http:// to a host other than loopback: credentials and prompts cross the network in clear. */
  insecure: boolean;
  /** Which surface of a stock opencode server to speak (auto: each session's engine); absent: auto. */
  surface?: Surface;
  /** Where its password comes from; absent: the host's own (the editor's secret storage). */
  auth?: BackendAuth;
}

export interface BackendConfigProblem {
  index: number;
  message: string;
}

/** What a host gives the normalizer besides the entry. */
export interface BackendDefaults {
  /** The directories of an entry that names none (the editor: the workspace folders). */
  directories: readonly string[];
  /** The auth of an entry (the editor: its secret storage); `entry`: the entry's own passwordEnv / passwordFile / username. */
  auth: BackendAuth | 'entry';
}

/** A field of an entry the normalizer refused (`field` "": the entry itself). */
export interface BackendFieldProblem {
  field: '' | 'baseUrl' | 'directories' | 'surface' | 'name';
  code: 'shape' | 'base-url' | 'plain-http' | 'directories' | 'surface' | 'duplicate-name' | 'duplicate-url';
  message: string;
}

export type NormalizedBackend =
  | { ok: true; backend: BackendConfig; /** clear-text http off this machine */ warning: string | null }
  | { ok: false; problem: BackendFieldProblem };

const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** One entry (untrusted) as a BackendConfig, or the problem of its first bad field. */
export function normalizeBackend(entry: unknown, defaults: BackendDefaults): NormalizedBackend {
  const fail = (field: BackendFieldProblem['field'], code: BackendFieldProblem['code'], message: string) =>
    ({ ok: false, problem: { field, code, message } }) as const;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
    return fail('', 'shape', 'each backend must be an object with a baseUrl');
  const e = entry as Record<string, unknown>;
  if (!nonEmpty(e.baseUrl)) return fail('baseUrl', 'shape', 'baseUrl is missing');
  let url: URL;
  try {
    url = normalizeBaseUrl(e.baseUrl);
  } catch (err) {
    // The reason only, never the URL itself: it may carry a password.
    return fail('baseUrl', 'base-url', describeError(err));
  }
  let directories = [...defaults.directories];
  if (e.directories !== undefined) {
    if (!Array.isArray(e.directories) || !e.directories.every(nonEmpty))
      return fail('directories', 'directories', 'directories must be an array of non-empty strings');
    directories = e.directories;
  }
  if (e.surface !== undefined && !isSurface(e.surface))
    return fail('surface', 'surface', 'surface must be auto, api or legacy');
  const warning = plainHttpWarning(url.href);
  const backend: BackendConfig = {
    key: backendKey(url.href),
    name: nonEmpty(e.name) ? e.name.trim() : url.host,
    baseUrl: url.href.replace(/\/$/, ''),
    directories: [...new Set(directories)],
    insecure: warning !== null,
    surface: e.surface ?? 'auto',
  };
  if (defaults.auth === 'entry') backend.auth = entryAuth(e);
  else if (defaults.auth.from !== 'secret-store') backend.auth = defaults.auth;
  return { ok: true, backend, warning };
}

function entryAuth(e: Record<string, unknown>): BackendAuth {
  const username = nonEmpty(e.username) ? e.username : DEFAULT_USERNAME;
  if (nonEmpty(e.passwordEnv)) return { from: 'env', username, variable: e.passwordEnv };
  if (nonEmpty(e.passwordFile)) return { from: 'file', username, file: e.passwordFile };
  return { from: 'none' };
}

/**
 * A list of entries: each normalized, a URL listed twice refused (and with `uniqueNames`, a name
 * used twice: the daemon labels metrics by name). Problems by index and field; warnings too.
 */
export function normalizeBackends(
  entries: readonly unknown[],
  defaults: BackendDefaults,
  options: { uniqueNames?: boolean } = {},
): {
  backends: Array<{ index: number; backend: BackendConfig }>;
  problems: Array<BackendFieldProblem & { index: number; severity: 'error' | 'warning' }>;
} {
  const backends: Array<{ index: number; backend: BackendConfig }> = [];
  const problems: Array<BackendFieldProblem & { index: number; severity: 'error' | 'warning' }> = [];
  const keys = new Set<string>();
  const names = new Set<string>();
  entries.forEach((entry, index) => {
    const r = normalizeBackend(entry, defaults);
    if (!r.ok) {
      problems.push({ ...r.problem, index, severity: 'error' });
      return;
    }
    const b = r.backend;
    if (r.warning)
      problems.push({ field: 'baseUrl', code: 'plain-http', message: r.warning, index, severity: 'warning' });
    const nameTaken = options.uniqueNames === true && names.has(b.name);
    if (nameTaken)
      problems.push({
        field: 'name',
        code: 'duplicate-name',
        message: `backend name "${b.name}" is used twice (it labels the metrics)`,
        index,
        severity: 'error',
      });
    if (keys.has(b.key))
      problems.push({
        field: 'baseUrl',
        code: 'duplicate-url',
        message: `backend ${b.baseUrl} is listed twice`,
        index,
        severity: 'error',
      });
    else if (!nameTaken) backends.push({ index, backend: b });
    keys.add(b.key);
    names.add(b.name);
  });
  return { backends, problems };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/**
 * The warning for a backend reached over clear-text http:// on a host other than this machine
 * (credentials and prompts cross the network unencrypted), or null. Pure: callers say it once
 * per backend (the CLI on stderr, the extension on the backend's row).
 */
export function plainHttpWarning(baseUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return null;
  return `${url.origin} is reached over clear-text http:// off this machine: the password and prompts can be read on the network; prefer https://`;
}

export function normalizeBaseUrl(raw: string): URL {
  const url = new URL(raw.trim());
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`unsupported protocol "${url.protocol}" (use http:// or https://)`);
  }
  if (url.username || url.password) {
    throw new Error('credentials do not belong in the URL; use "Session Ops: Set Backend Password..."');
  }
  url.hash = '';
  url.search = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** The editor's `sessionOps.backends` setting: entries without directories take the workspace folders. */
export function parseBackendConfigs(
  raw: unknown,
  workspaceFolders: string[],
): { backends: BackendConfig[]; problems: BackendConfigProblem[] } {
  if (!Array.isArray(raw)) {
    const problems =
      raw !== undefined && raw !== null ? [{ index: 0, message: 'sessionOps.backends must be an array' }] : [];
    return { backends: [], problems };
  }
  const r = normalizeBackends(raw, { directories: workspaceFolders, auth: { from: 'secret-store' } });
  return {
    backends: r.backends.map((b) => b.backend),
    problems: r.problems.map((p) => ({
      index: p.index,
      message: p.code === 'base-url' ? `invalid baseUrl: ${p.message}` : p.message,
    })),
  };
}
