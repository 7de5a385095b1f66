// The `session-ops watch` configuration file (session-ops.yaml, YAML or JSON): parsed, checked by
// the one JSON Schema engine (config-schema.ts: ajv on schemas/session-ops.schema.json), then
// turned into the daemon's configuration. Its operator settings are those of the core model
// (src/core/settings/operator-settings.ts), under the same names nested by group, and are read by
// that model; its backends go through the one backend normalizer (src/core/config/backends.ts).
// Every problem carries the text range it is about, so `watch` (which refuses to start on an
// error) and the language server (which underlines it) report the same thing at the same place.
// A password written inline is an error whose message never repeats the value. Pure: reading
// passwordFile is load.ts's job.
import { parseDocument, isMap, isSeq, type Node } from 'yaml';
import { normalizeBaseUrl, plainHttpWarning } from '../config/backends';
import { DEFAULT_USERNAME } from '../backend/credentials';
import type { Surface } from '../model';
import type { LogLevel } from './log';
import { nestedSource, readOperatorSettings, type OperatorSettings } from '../settings/operator-settings';
import { schemaDefault, schemaProblems, type ConfigProblem } from './config-schema';
import type { WatchConfigFile } from './config-file';

export { configSchema, schemaDefault, type ConfigProblem } from './config-schema';

export const CONFIG_SOURCE = 'session-ops.config';

export interface WatchBackend {
  /** The `backend` label of its metrics. */
  name: string;
  /** Normalized base URL with no trailing slash. */
  baseUrl: string;
  directories: string[];
  username: string;
  /** Where the password comes from; null: no authentication. */
  password: { env: string } | { file: string } | null;
  /** Which surface of a stock opencode server to speak (auto: each session's engine). */
  surface: Surface;
}

export interface WatchConfig {
  backends: WatchBackend[];
  /** The orchestrator session the daemon speaks for (authority rules 1 and 2); null: none, so no prompt is sent. */
  orchestrator: string | null;
  /** The operator settings (the core model; sampleSpacingSeconds may be under 30 with --allow-short-spacing). */
  operator: OperatorSettings;
  metrics: { maxSessionSeries: number };
  /** The least severe log line written (watch --log-level overrides it). */
  logLevel: LogLevel;
  /** The routing table GET /api/route resolves in (as written; load.ts resolves it from the file's folder); null: none. */
  routing: string | null;
  /** The API's tokens (auth.tokensFile; load.ts resolves it from the file's folder; null: none, the API is closed) and whether /metrics needs one. */
  auth: { tokensFile: string | null; metrics: boolean };
  /** HTTPS with these PEM files (resolved like auth.tokensFile); null: plain HTTP. */
  tls: { certFile: string; keyFile: string } | null;
  /** The audit trail's rotation. */
  audit: { maxBytes: number; keep: number };
}

export interface ParseOptions {
  /** Accept sampleSpacingSeconds under 30 (watch --allow-short-spacing); undefined: a warning (the editor). */
  allowShortSpacing?: boolean;
}

export interface ParsedConfig {
  /** Null when any problem is an error. */
  config: WatchConfig | null;
  problems: ConfigProblem[];
}

const hasError = (problems: readonly ConfigProblem[]) => problems.some((p) => p.severity === 'error');

/** Parses and checks a configuration text. Never throws on bad input. */
export function parseWatchConfig(text: string, options: ParseOptions = {}): ParsedConfig {
  const problems: ConfigProblem[] = [];
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  for (const e of doc.errors.slice(0, 50)) {
    const [start, end] = e.pos;
    problems.push({
      severity: 'error',
      code: 'config.syntax',
      path: '',
      message: e.message.split('\n')[0],
      start,
      end,
    });
  }
  if (problems.length > 0) return { config: null, problems };
  if (!doc.contents) {
    const message = 'the file is empty: it needs at least "backends"';
    return {
      config: null,
      problems: [{ severity: 'error', code: 'config.required', path: '', message, start: 0, end: 0 }],
    };
  }
  const value: unknown = doc.toJS();
  problems.push(...schemaProblems(doc, value, options));
  if (hasError(problems)) return { config: null, problems };
  const config = toConfig(value as WatchConfigFile);
  problems.push(...backendProblems(doc.contents as Node, config));
  return { config: hasError(problems) ? null : config, problems };
}

/** What the schema cannot say: URLs parse, backend names and URLs are unique, clear-text http off this machine. */
function backendProblems(root: Node, config: WatchConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seq = isMap(root) ? root.get('backends', true) : null;
  const names = new Set<string>();
  const urls = new Set<string>();
  config.backends.forEach((b, i) => {
    const item = isSeq(seq) ? (seq.items[i] as Node) : null;
    const path = `backends[${i}]`;
    const add = (code: string, key: string, message: string, severity: 'error' | 'warning' = 'error') => {
      const node = (isMap(item) ? (item.get(key, true) as Node | undefined) : undefined) ?? item;
      const [start, end] = node?.range ?? [0, 0];
      problems.push({ severity, code, path: `${path}.${key}`, message, start, end });
    };
    let url: URL;
    try {
      url = normalizeBaseUrl(b.baseUrl);
    } catch (err) {
      add('config.base-url', 'baseUrl', `${path}.baseUrl: ${(err as Error).message}`);
      return;
    }
    b.baseUrl = url.href.replace(/\/$/, '');
    if (!b.name) b.name = url.host;
    const warning = plainHttpWarning(url.href);
    if (warning) add('config.plain-http', 'baseUrl', warning, 'warning');
    if (names.has(b.name))
      add('config.duplicate', 'name', `backend name "${b.name}" is used twice (it labels the metrics)`);
    if (urls.has(b.baseUrl)) add('config.duplicate', 'baseUrl', `backend ${b.baseUrl} is listed twice`);
    names.add(b.name);
    urls.add(b.baseUrl);
  });
  return problems;
}

/** The configuration of a file the schema accepted; what it leaves out takes the schema's default. */
function toConfig(v: WatchConfigFile): WatchConfig {
  const text = (s: string | undefined): string | null => (s === undefined || s.trim() === '' ? null : s.trim());
  const backends = v.backends.map((b): WatchBackend => ({
    name: b.name?.trim() ?? '',
    baseUrl: b.baseUrl.trim(),
    directories: [...new Set(b.directories)],
    username: b.username ?? DEFAULT_USERNAME,
    surface: b.surface ?? 'auto',
    password:
      b.passwordEnv !== undefined
        ? { env: b.passwordEnv }
        : b.passwordFile !== undefined
          ? { file: b.passwordFile }
          : null,
  }));
  return {
    backends,
    orchestrator: text(v.orchestrator),
    operator: readOperatorSettings(nestedSource(v), 'checked'),
    metrics: { maxSessionSeries: v.metrics?.maxSessionSeries ?? schemaDefault('metrics.maxSessionSeries') },
    logLevel: v.logLevel ?? schemaDefault('logLevel'),
    routing: text(v.routing),
    auth: { tokensFile: text(v.auth?.tokensFile), metrics: v.auth?.metrics ?? schemaDefault('auth.metrics') },
    tls: v.tls ? { certFile: v.tls.certFile, keyFile: v.tls.keyFile } : null,
    audit: {
      maxBytes: (v.audit?.maxMiB ?? schemaDefault<number>('audit.maxMiB')) * 1024 * 1024,
      keep: v.audit?.keep ?? schemaDefault('audit.keep'),
    },
  };
}

/** `session-ops.yaml`, `session-ops.yml`, `*.session-ops.yaml` / `.yml` (and `.json`): the file kind. */
export function isWatchConfigFileName(filePath: string): boolean {
  const base = filePath.split(/[\\/]/).pop()!.toLowerCase();
  return /^(?:.+\.)?session-ops\.(?:ya?ml|json)$/.test(base);
}

/** One line for a problem: "FILE:LINE:COL: message" with 1-based line and column. */
export function formatProblem(file: string, text: string, p: ConfigProblem): string {
  const before = text.slice(0, p.start);
  const line = before.split('\n').length;
  const col = p.start - before.lastIndexOf('\n');
  return `${file}:${line}:${col}: ${p.severity}: ${p.message}`;
}
