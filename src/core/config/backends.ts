// Normalizes the `sessionOps.backends` setting: validates each entry, fills the default
// directories (the workspace folders) and flags clear-text URLs that leave the machine.
import { isSurface } from '../backend/engines';
import { describeError } from '../error-message';
import type { Surface } from '../model';

export interface BackendConfig {
  /** Stable key: the normalized base URL. */
  key: string;
  name: string;
  baseUrl: string;
  directories: string[];
  /** http:// to a host other than loopback: credentials and prompts cross the network in clear. */
  insecure: boolean;
  /** Which surface of a stock opencode server to speak (auto: each session's engine); absent: auto. */
  surface?: Surface;
}

export interface BackendConfigProblem {
  index: number;
  message: string;
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

export function parseBackendConfigs(
  raw: unknown,
  workspaceFolders: string[],
): { backends: BackendConfig[]; problems: BackendConfigProblem[] } {
  const backends: BackendConfig[] = [];
  const problems: BackendConfigProblem[] = [];
  if (!Array.isArray(raw)) {
    if (raw !== undefined && raw !== null) problems.push({ index: 0, message: 'sessionOps.backends must be an array' });
    return { backends, problems };
  }
  const seen = new Set<string>();
  raw.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) {
      problems.push({ index, message: 'each backend must be an object with a baseUrl' });
      return;
    }
    const e = entry as Record<string, unknown>;
    if (typeof e.baseUrl !== 'string' || e.baseUrl.trim() === '') {
      problems.push({ index, message: 'baseUrl is missing' });
      return;
    }
    let url: URL;
    try {
      url = normalizeBaseUrl(e.baseUrl);
    } catch (err) {
      problems.push({ index, message: `invalid baseUrl "${e.baseUrl}": ${describeError(err)}` });
      return;
    }
    const key = url.href;
    if (seen.has(key)) {
      problems.push({ index, message: `duplicate backend ${key}` });
      return;
    }
    seen.add(key);
    let directories = workspaceFolders;
    if (e.directories !== undefined) {
      if (!Array.isArray(e.directories) || !e.directories.every((d) => typeof d === 'string' && d.trim() !== '')) {
        problems.push({ index, message: 'directories must be an array of non-empty strings' });
        return;
      }
      directories = e.directories as string[];
    }
    if (e.surface !== undefined && !isSurface(e.surface)) {
      problems.push({ index, message: 'surface must be auto, api or legacy' });
      return;
    }
    const warning = plainHttpWarning(url.href);
    const insecure = warning !== null;
    if (warning) problems.push({ index, message: warning });
    const name = typeof e.name === 'string' && e.name.trim() !== '' ? e.name.trim() : url.host;
    backends.push({
      key,
      name,
      baseUrl: url.href.replace(/\/$/, ''),
      directories: [...new Set(directories)],
      insecure,
      surface: e.surface ?? 'auto',
    });
  });
  return { backends, problems };
}
