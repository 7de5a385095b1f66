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
import { normalizeBackends, type BackendAuth, type BackendConfig, type BackendFieldProblem } from '../config/backends';
import type { LogLevel } from './log';
import { nestedSource, readOperatorSettings, type OperatorSettings } from '../settings/operator-settings';
import { schemaDefault, schemaProblems, type ConfigProblem } from './config-schema';
import type { WatchConfigFile } from './config-file';

export { configSchema, schemaDefault, type ConfigProblem } from './config-schema';

export const CONFIG_SOURCE = 'session-ops.config';

/** A backend of the watch config: normalized by the one backend normalizer, its auth from the file. */
export type WatchBackend = BackendConfig & { auth: BackendAuth };

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
  const file = value as WatchConfigFile;
  const { backends, problems: backendProblems } = normalizedBackends(doc.contents as Node, file.backends);
  problems.push(...backendProblems);
  return { config: hasError(problems) ? null : toConfig(file, backends), problems };
}

const BACKEND_CODES: Record<BackendFieldProblem['code'], string> = {
  shape: 'config.type',
  'base-url': 'config.base-url',
  'plain-http': 'config.plain-http',
  directories: 'config.type',
  surface: 'config.enum',
  'duplicate-name': 'config.duplicate',
  'duplicate-url': 'config.duplicate',
};

/**
 * The backends through the one normalizer, and what the schema cannot say: URLs parse, backend
 * names and URLs are unique, clear-text http off this machine (a warning).
 */
function normalizedBackends(root: Node, entries: unknown[]): { backends: WatchBackend[]; problems: ConfigProblem[] } {
  const seq = isMap(root) ? root.get('backends', true) : null;
  const r = normalizeBackends(entries, { directories: [], auth: 'entry' }, { uniqueNames: true });
  const problems = r.problems.map((p): ConfigProblem => {
    const item = isSeq(seq) ? (seq.items[p.index] as Node) : null;
    const node = (isMap(item) && p.field ? (item.get(p.field, true) as Node | undefined) : undefined) ?? item;
    const [start, end] = node?.range ?? [0, 0];
    const path = `backends[${p.index}]${p.field ? `.${p.field}` : ''}`;
    const message = p.code === 'base-url' ? `${path}: ${p.message}` : p.message;
    return { severity: p.severity, code: BACKEND_CODES[p.code], path, message, start, end };
  });
  return { backends: r.backends.map((b) => b.backend as WatchBackend), problems };
}

/** The configuration of a file the schema accepted; what it leaves out takes the schema's default. */
function toConfig(v: WatchConfigFile, backends: WatchBackend[]): WatchConfig {
  const text = (s: string | undefined): string | null => (s === undefined || s.trim() === '' ? null : s.trim());
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
