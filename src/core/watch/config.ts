// The `session-ops watch` configuration file (session-ops.yaml, YAML or JSON): parsed and checked
// against schemas/session-ops.schema.json (this module interprets the subset of JSON Schema that
// file uses). The operator settings in it are those of the core model (src/core/settings), under
// the same names, nested by group; the schema repeats their types, bounds and defaults for editors
// and a unit test holds it equal to the model, whose defaults are the ones used here. Every problem carries
// the text range it is about, so `watch` (which refuses to start on an error) and the language
// server (which underlines it) report the same thing at the same place. A password written inline
// is an error whose message never repeats the value. Pure: reading passwordFile is load.ts's job.
import { isMap, isScalar, isSeq, parseDocument, type Node, type Pair } from 'yaml';
import schemaJson from '../../../schemas/session-ops.schema.json';
import { normalizeBaseUrl, plainHttpWarning } from '../config/backends';
import { DEFAULT_USERNAME } from '../backend/credentials';
import { isSurface } from '../backend/engines';
import type { Surface } from '../model';
import type { LogLevel } from './log';
import { OPERATOR_DEFAULTS, OPERATOR_SETTING_KEYS, type OperatorSettings } from '../settings/operator-settings';

interface SchemaNode {
  type?: 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean';
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean;
  required?: string[];
  not?: { required: string[] };
  items?: SchemaNode;
  minItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  minimum?: number;
  maximum?: number;
  pattern?: string;
  enum?: string[];
  default?: unknown;
  description?: string;
  $ref?: string;
}

export const configSchema = schemaJson as unknown as SchemaNode & { $defs: Record<string, SchemaNode> };

export const CONFIG_SOURCE = 'session-ops.config';

/** Spacing under this needs --allow-short-spacing (the spec's 30 s minimum between two samples). */
const MIN_SPACING_SECONDS = 30;

export interface ConfigProblem {
  severity: 'error' | 'warning';
  /** Stable code, e.g. "config.unknown-key", "config.inline-password". */
  code: string;
  /** Where, as a key path: "backends[0].baseUrl" ("" for the whole file). */
  path: string;
  message: string;
  /** Offsets into the text. */
  start: number;
  end: number;
}

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
  /** Accept sampleSpacingSeconds under 30 (watch --allow-short-spacing). */
  allowShortSpacing?: boolean;
}

export interface ParsedConfig {
  /** Null when any problem is an error. */
  config: WatchConfig | null;
  problems: ConfigProblem[];
}

const INLINE_SECRET = /^(password|passwd|pass|secret|token|apiKey|authorization)$/i;

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
  const root = doc.contents as Node | null;
  const checker = new Checker(problems, options);
  if (!root) {
    checker.add('config.required', '', 'the file is empty: it needs at least "backends"', 0, 0);
    return { config: null, problems };
  }
  checker.check(root, configSchema, '');
  if (problems.some((p) => p.severity === 'error')) return { config: null, problems };
  const value = doc.toJS() as Record<string, unknown>;
  const config = toConfig(value);
  checker.semantic(root, config);
  return { config: problems.some((p) => p.severity === 'error') ? null : config, problems };
}

class Checker {
  constructor(
    private readonly problems: ConfigProblem[],
    private readonly options: ParseOptions,
  ) {}

  add(
    code: string,
    path: string,
    message: string,
    start: number,
    end: number,
    severity: 'error' | 'warning' = 'error',
  ) {
    this.problems.push({ severity, code, path, message, start, end });
  }

  private at(node: Node | Pair['key'] | null | undefined): [number, number] {
    const r = (node as Node | null)?.range;
    return r ? [r[0], r[1]] : [0, 0];
  }

  check(node: Node, schema: SchemaNode, path: string): void {
    const s = resolve(schema);
    const [start, end] = this.at(node);
    const where = path || 'the file';
    switch (s.type) {
      case 'object': {
        if (!isMap(node)) return this.add('config.type', path, `${where} must be a mapping`, start, end);
        const seen = new Set<string>();
        for (const pair of node.items) {
          const key = isScalar(pair.key) ? String(pair.key.value) : null;
          const [ks, ke] = this.at(pair.key as Node);
          if (key === null) {
            this.add('config.type', path, `a key of ${where} is not a plain name`, ks, ke);
            continue;
          }
          seen.add(key);
          const sub = joinPath(path, key);
          const propSchema = s.properties?.[key];
          if (!propSchema) {
            if (INLINE_SECRET.test(key))
              this.add(
                'config.inline-password',
                sub,
                `${sub}: a password is never written in the configuration; name an environment variable (passwordEnv) or a file (passwordFile) instead`,
                ks,
                ke,
              );
            else
              this.add(
                'config.unknown-key',
                sub,
                `unknown key "${key}" in ${where} (known: ${Object.keys(s.properties ?? {}).join(', ')})`,
                ks,
                ke,
              );
            continue;
          }
          if (pair.value === null || pair.value === undefined) {
            this.add('config.type', sub, `${sub} has no value`, ks, ke);
            continue;
          }
          this.check(pair.value as Node, propSchema, sub);
        }
        const keyEnd = start + 1;
        for (const r of s.required ?? [])
          if (!seen.has(r)) this.add('config.required', path, `${where} needs "${r}"`, start, Math.min(end, keyEnd));
        if (s.not && s.not.required.every((r) => seen.has(r)))
          this.add(
            'config.exclusive',
            path,
            `${where}: ${s.not.required.map((r) => `"${r}"`).join(' and ')} exclude each other; give one`,
            start,
            Math.min(end, keyEnd),
          );
        return;
      }
      case 'array': {
        if (!isSeq(node)) return this.add('config.type', path, `${where} must be a list`, start, end);
        if (s.minItems !== undefined && node.items.length < s.minItems)
          this.add('config.min-items', path, `${where} needs at least ${s.minItems} item(s)`, start, end);
        if (s.uniqueItems) {
          const values = node.items.map((i) => (isScalar(i) ? i.value : i));
          if (new Set(values).size !== values.length)
            this.add('config.unique-items', path, `${where} lists an item twice`, start, end);
        }
        node.items.forEach((item, i) => {
          if (item) this.check(item as Node, s.items ?? {}, `${path}[${i}]`);
        });
        return;
      }
      default:
        return this.scalar(node, s, path, start, end);
    }
  }

  private scalar(node: Node, s: SchemaNode, path: string, start: number, end: number): void {
    if (!isScalar(node)) return this.add('config.type', path, `${path} must be a ${s.type}`, start, end);
    const v = node.value;
    const typeOk =
      s.type === 'string'
        ? typeof v === 'string'
        : s.type === 'boolean'
          ? typeof v === 'boolean'
          : s.type === 'integer'
            ? typeof v === 'number' && Number.isInteger(v)
            : typeof v === 'number' && Number.isFinite(v);
    if (!typeOk)
      return this.add('config.type', path, `${path} must be a${s.type === 'integer' ? 'n' : ''} ${s.type}`, start, end);
    if (typeof v === 'string') {
      if (s.enum && !s.enum.includes(v))
        this.add('config.enum', path, `${path} must be one of ${s.enum.join(', ')}`, start, end);
      else if (s.minLength !== undefined && v.trim().length < s.minLength)
        this.add('config.min-length', path, `${path} must not be empty`, start, end);
      else if (s.pattern && !new RegExp(s.pattern).test(v))
        this.add('config.pattern', path, `${path} must match ${s.pattern}`, start, end);
    }
    if (typeof v === 'number') {
      if (path === 'sampleSpacingSeconds' && v < MIN_SPACING_SECONDS) {
        if (v <= 0) this.add('config.minimum', path, `${path} must be more than 0`, start, end);
        else if (!this.options.allowShortSpacing)
          this.add(
            'config.short-spacing',
            path,
            `${path} ${v} is under ${MIN_SPACING_SECONDS}: two samples closer than 30 s cannot tell a hung session from a busy one (the spec's minimum); watch --allow-short-spacing exists for tests and demos`,
            start,
            end,
            this.options.allowShortSpacing === undefined ? 'warning' : 'error',
          );
      } else if (s.minimum !== undefined && v < s.minimum)
        this.add('config.minimum', path, `${path} must be at least ${s.minimum}`, start, end);
      if (s.maximum !== undefined && v > s.maximum)
        this.add('config.maximum', path, `${path} must be at most ${s.maximum}`, start, end);
    }
  }

  /** What the schema cannot say: URLs parse, backend names and URLs are unique, clear-text http off this machine. */
  semantic(root: Node, config: WatchConfig): void {
    const seq = isMap(root) ? root.get('backends', true) : null;
    const names = new Map<string, number>();
    const urls = new Map<string, number>();
    config.backends.forEach((b, i) => {
      const item = isSeq(seq) ? (seq.items[i] as Node) : null;
      const field = (key: string): [number, number] => {
        const n = isMap(item) ? (item.get(key, true) as Node | undefined) : undefined;
        return this.at(n ?? item);
      };
      const path = `backends[${i}]`;
      let url: URL;
      try {
        url = normalizeBaseUrl(b.baseUrl);
      } catch (err) {
        this.add(
          'config.base-url',
          `${path}.baseUrl`,
          `${path}.baseUrl: ${(err as Error).message}`,
          ...field('baseUrl'),
        );
        return;
      }
      b.baseUrl = url.href.replace(/\/$/, '');
      if (!b.name) b.name = url.host;
      const warning = plainHttpWarning(url.href);
      if (warning) this.add('config.plain-http', `${path}.baseUrl`, warning, ...field('baseUrl'), 'warning');
      if (names.has(b.name))
        this.add(
          'config.duplicate',
          `${path}.name`,
          `backend name "${b.name}" is used twice (it labels the metrics)`,
          ...field('name'),
        );
      if (urls.has(b.baseUrl))
        this.add('config.duplicate', `${path}.baseUrl`, `backend ${b.baseUrl} is listed twice`, ...field('baseUrl'));
      names.set(b.name, i);
      urls.set(b.baseUrl, i);
    });
  }
}

function resolve(s: SchemaNode): SchemaNode {
  if (!s.$ref) return s;
  const name = s.$ref.replace('#/$defs/', '');
  return configSchema.$defs[name];
}

function joinPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

/** The default the schema gives the property at `path` ("quotaWall.retryWaitMinutes"). */
export function schemaDefault<T>(path: string): T {
  let s: SchemaNode = configSchema;
  for (const part of path.split('.')) s = resolve(s.properties?.[part] ?? {});
  if (s.default === undefined) throw new Error(`schemas/session-ops.schema.json gives ${path} no default`);
  return s.default as T;
}

function toConfig(v: Record<string, unknown>): WatchConfig {
  /** The value at a dotted path; absent: the schema's default, or undefined with `fallback` null. */
  const get = <T>(path: string, fallback?: null): T => {
    let cur: unknown = v;
    for (const part of path.split('.'))
      cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
    return (cur === undefined && fallback !== null ? schemaDefault<T>(path) : cur) as T;
  };
  const backends = (v.backends as Array<Record<string, unknown>>).map((b): WatchBackend => ({
    name: typeof b.name === 'string' ? b.name.trim() : '',
    baseUrl: String(b.baseUrl).trim(),
    directories: [...new Set(b.directories as string[])],
    username: typeof b.username === 'string' ? b.username : DEFAULT_USERNAME,
    surface: isSurface(b.surface) ? b.surface : 'auto',
    password:
      typeof b.passwordEnv === 'string'
        ? { env: b.passwordEnv }
        : typeof b.passwordFile === 'string'
          ? { file: b.passwordFile }
          : null,
  }));
  const operator = { ...OPERATOR_DEFAULTS } as Record<string, unknown>;
  for (const key of OPERATOR_SETTING_KEYS) {
    const value = get<unknown>(key, null);
    if (value !== undefined) operator[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
  }
  const orchestrator = get<string | undefined>('orchestrator', null);
  const routing = get<string | undefined>('routing', null);
  const tokensFile = get<string | undefined>('auth.tokensFile', null);
  const certFile = get<string | undefined>('tls.certFile', null);
  const keyFile = get<string | undefined>('tls.keyFile', null);
  return {
    backends,
    orchestrator: typeof orchestrator === 'string' ? orchestrator.trim() : null,
    operator: operator as OperatorSettings,
    metrics: { maxSessionSeries: get('metrics.maxSessionSeries') },
    logLevel: get('logLevel'),
    routing: typeof routing === 'string' && routing.trim() !== '' ? routing.trim() : null,
    auth: { tokensFile: typeof tokensFile === 'string' ? tokensFile.trim() : null, metrics: get('auth.metrics') },
    tls: typeof certFile === 'string' && typeof keyFile === 'string' ? { certFile, keyFile } : null,
    audit: { maxBytes: get<number>('audit.maxMiB') * 1024 * 1024, keep: get('audit.keep') },
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
