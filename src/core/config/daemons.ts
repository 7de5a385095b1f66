// Normalizes the `sessionOps.daemons` setting: the `session-ops watch` daemons a window attaches to
// (docs/daemon.md, "Attach the editor"). Each entry is `{url, name?}`; the url is checked as the
// daemon client checks it (src/core/daemon/client.ts parseDaemonUrl: http or https, no
// credentials, no query or fragment). A token is never
// part of the setting: it lives in the editor's secret storage keyed by `daemonTokenKey(url)`.
// Never imports 'vscode'.
import { describeError } from '../error-message';
import { normalizeBaseUrl, plainHttpWarning, type BackendConfigProblem } from './backends';

export interface DaemonConfig {
  /** Stable key: the normalized URL (trailing slash). */
  key: string;
  name: string;
  url: string;
  /** http:// to a host other than loopback: the token crosses the network in clear. */
  insecure: boolean;
}

/** A daemon's url, normalized (trailing slash); throws on anything but http(s) without credentials, query or fragment. */
export function normalizeDaemonUrl(raw: string): URL {
  const trimmed = raw.trim();
  if (/[?#]/.test(trimmed)) throw new Error(`${trimmed}: no query or fragment`);
  return normalizeBaseUrl(trimmed);
}

/** The secret storage key of a daemon's token (by its normalized url). */
export function daemonTokenKey(url: string): string {
  return normalizeDaemonUrl(url).href;
}

export function parseDaemonConfigs(raw: unknown): { daemons: DaemonConfig[]; problems: BackendConfigProblem[] } {
  const daemons: DaemonConfig[] = [];
  const problems: BackendConfigProblem[] = [];
  if (!Array.isArray(raw)) {
    if (raw !== undefined && raw !== null) problems.push({ index: 0, message: 'sessionOps.daemons must be an array' });
    return { daemons, problems };
  }
  const seen = new Set<string>();
  raw.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push({ index, message: 'each daemon must be an object with a url' });
      return;
    }
    const e = entry as Record<string, unknown>;
    const unknown = Object.keys(e).filter((k) => k !== 'url' && k !== 'name');
    if (unknown.length > 0) {
      problems.push({
        index,
        message: `unknown key ${unknown.map((k) => JSON.stringify(k)).join(', ')} (a daemon has url and name; its token is set by Set Daemon Token...)`,
      });
      return;
    }
    if (typeof e.url !== 'string' || e.url.trim() === '') {
      problems.push({ index, message: 'url is missing' });
      return;
    }
    let url: URL;
    try {
      url = normalizeDaemonUrl(e.url);
    } catch (err) {
      problems.push({ index, message: `invalid url: ${describeError(err)}` });
      return;
    }
    if (seen.has(url.href)) {
      problems.push({ index, message: `duplicate daemon ${url.href}` });
      return;
    }
    seen.add(url.href);
    if (e.name !== undefined && typeof e.name !== 'string') {
      problems.push({ index, message: 'name must be a string' });
      return;
    }
    const warning = plainHttpWarning(url.href);
    if (warning) problems.push({ index, message: warning.replace('the password', 'the token') });
    const name = typeof e.name === 'string' && e.name.trim() !== '' ? e.name.trim() : url.host;
    daemons.push({ key: url.href, name, url: url.href, insecure: warning !== null });
  });
  return { daemons, problems };
}
