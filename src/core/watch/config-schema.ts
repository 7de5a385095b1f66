// The one JSON Schema engine for the `watch` configuration file: ajv (draft 2020-12), compiled
// once per process, lazily, from schemas/session-ops.schema.json. Its errors become ConfigProblems
// that name the key path, say what was wrong in a sentence, and carry the text range of the YAML
// node they are about (the value, or the key for an unknown or secret key), so `watch` and the
// language server report the same thing at the same place. A password written inline is reported
// by its key and its value is never repeated. Pure: no I/O.
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';
import schemaJson from '../../../schemas/session-ops.schema.json';
import { joinKey } from '../keys';

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

/** The parts of a JSON Schema this module reads (for messages and defaults). */
interface SchemaPart {
  type?: string;
  properties?: Record<string, SchemaPart>;
  not?: { required?: string[] };
  default?: unknown;
  $ref?: string;
}

export const configSchema = schemaJson as unknown as SchemaPart & { $defs: Record<string, SchemaPart> };

/** Spacing under this needs --allow-short-spacing (the spec's 30 s minimum between two samples). */
const MIN_SPACING_SECONDS = 30;

/** A key that names a secret: written inline it is refused by its key, never echoed. */
const INLINE_SECRET = /^(password|passwd|pass|secret|token|apiKey|authorization)$/i;

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    // strictRequired off: `not: {required: [passwordEnv, passwordFile]}` names properties its
    // parent declares (the usual way to say "not both").
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, verbose: true });
    compiled = ajv.compile(configSchema);
  }
  return compiled;
}

export interface SchemaOptions {
  /** Accept sampleSpacingSeconds under 30 (watch --allow-short-spacing); undefined: a warning (the editor). */
  allowShortSpacing?: boolean;
}

type Segment = string | number;

/**
 * Validates the parsed document's value against the schema; the problems in document order. A
 * string of blanks counts as empty (the schema's minLength), as a person reads it.
 */
export function schemaProblems(doc: Document, value: unknown, options: SchemaOptions = {}): ConfigProblem[] {
  const validate = validator();
  if (validate(blankAsEmpty(value))) return [];
  const seen = new Set<string>();
  const problems: Array<ConfigProblem & { order: number }> = [];
  const errors = [...(validate.errors ?? [])].sort((a, b) => rank(a.keyword) - rank(b.keyword));
  for (const error of errors) {
    const problem = toProblem(doc, value, error, options);
    if (!problem) continue;
    // One problem per value (a type error hides its pattern, an empty string its pattern).
    const once = VALUE_KEYWORDS.has(error.keyword)
      ? joinKey('value', problem.path)
      : joinKey(problem.code, problem.path, problem.message);
    if (seen.has(once)) continue;
    seen.add(once);
    problems.push({ ...problem, order: problems.length });
  }
  problems.sort((a, b) => a.start - b.start || a.order - b.order);
  return problems.map(({ order: _order, ...p }) => p);
}

const VALUE_KEYWORDS = new Set([
  'type',
  'enum',
  'minLength',
  'pattern',
  'minimum',
  'maximum',
  'minItems',
  'uniqueItems',
]);
const KEYWORD_RANK = ['type', 'enum', 'minLength', 'pattern', 'minimum', 'maximum', 'minItems', 'uniqueItems'];
const rank = (keyword: string): number => {
  const i = KEYWORD_RANK.indexOf(keyword);
  return i < 0 ? KEYWORD_RANK.length : i;
};

function blankAsEmpty(v: unknown): unknown {
  if (typeof v === 'string') return v.trim() === '' ? '' : v;
  if (Array.isArray(v)) return v.map(blankAsEmpty);
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, blankAsEmpty(x)]));
  return v;
}

function toProblem(doc: Document, value: unknown, e: ErrorObject, options: SchemaOptions): ConfigProblem | null {
  const segments = segmentsOf(value, e.instancePath);
  const path = pathText(segments);
  const where = path || 'the file';
  const located = locate(doc, segments);
  const [start, end] = located.value ?? located.key ?? [0, 0];
  const head: [number, number] = [start, Math.min(end, start + 1)];
  const problem = (code: string, message: string, at: [number, number] = [start, end]): ConfigProblem => ({
    severity: 'error',
    code,
    path,
    message,
    start: at[0],
    end: at[1],
  });
  const params = e.params as Record<string, unknown>;
  const parent = (e.parentSchema ?? {}) as SchemaPart;
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(params.additionalProperty);
      const sub = pathText([...segments, key]);
      const at = locate(doc, [...segments, key]).key ?? [start, end];
      if (INLINE_SECRET.test(key))
        return {
          ...problem(
            'config.inline-password',
            `${sub}: a password is never written in the configuration; name an environment variable (passwordEnv) or a file (passwordFile) instead`,
            at,
          ),
          path: sub,
        };
      const known = Object.keys(parent.properties ?? {}).join(', ');
      return { ...problem('config.unknown-key', `unknown key "${key}" in ${where} (known: ${known})`, at), path: sub };
    }
    case 'required':
      return problem('config.required', `${where} needs "${String(params.missingProperty)}"`, head);
    case 'not': {
      // `not: {required}` holds vacuously on a value that is no mapping: its type error says it.
      if (!e.data || typeof e.data !== 'object' || Array.isArray(e.data)) return null;
      const names = (parent.not?.required ?? []).map((r) => `"${r}"`).join(' and ');
      return problem('config.exclusive', `${where}: ${names} exclude each other; give one`, head);
    }
    case 'type': {
      if (!located.value && located.key) return problem('config.type', `${path} has no value`, located.key);
      const type = String(params.type);
      if (type === 'object') return problem('config.type', `${where} must be a mapping`);
      if (type === 'array') return problem('config.type', `${where} must be a list`);
      return problem('config.type', `${path} must be a${type === 'integer' ? 'n' : ''} ${type}`);
    }
    case 'enum':
      return problem('config.enum', `${path} must be one of ${(params.allowedValues as unknown[]).join(', ')}`);
    case 'minLength':
      return problem('config.min-length', `${path} must not be empty`);
    case 'pattern':
      return problem('config.pattern', `${path} must match ${String(params.pattern)}`);
    case 'minimum': {
      if (path === 'sampleSpacingSeconds') return shortSpacing(problem, e.data as number, path, options);
      return problem('config.minimum', `${path} must be at least ${String(params.limit)}`);
    }
    case 'maximum':
      return problem('config.maximum', `${path} must be at most ${String(params.limit)}`);
    case 'minItems':
      return problem('config.min-items', `${where} needs at least ${String(params.limit)} item(s)`);
    case 'uniqueItems':
      return problem('config.unique-items', `${where} lists an item twice`);
    default:
      return problem('config.schema', `${where} ${e.message ?? 'does not match the schema'}`);
  }
}

/** sampleSpacingSeconds under 30: allowed by --allow-short-spacing, a warning in the editor, else an error. */
function shortSpacing(
  problem: (code: string, message: string) => ConfigProblem,
  v: number,
  path: string,
  options: SchemaOptions,
): ConfigProblem | null {
  if (v <= 0) return problem('config.minimum', `${path} must be more than 0`);
  if (options.allowShortSpacing) return null;
  const p = problem(
    'config.short-spacing',
    `${path} ${v} is under ${MIN_SPACING_SECONDS}: two samples closer than 30 s cannot tell a hung session from a busy one (the spec's minimum); watch --allow-short-spacing exists for tests and demos`,
  );
  return options.allowShortSpacing === undefined ? { ...p, severity: 'warning' } : p;
}

/** ajv's instance path (a JSON pointer) as keys and list indexes, read against the value. */
function segmentsOf(value: unknown, pointer: string): Segment[] {
  if (pointer === '') return [];
  const out: Segment[] = [];
  let cur = value;
  for (const raw of pointer.slice(1).split('/')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const seg: Segment = Array.isArray(cur) ? Number(part) : part;
    out.push(seg);
    cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[String(part)] : undefined;
  }
  return out;
}

/** "backends[0].baseUrl". */
export function pathText(segments: readonly Segment[]): string {
  return segments.reduce<string>((acc, s) => (typeof s === 'number' ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

/** The text ranges of the node at `segments`: its value (absent when it has none) and its key. */
function locate(doc: Document, segments: readonly Segment[]): { value?: [number, number]; key?: [number, number] } {
  let node = doc.contents as Node | null;
  let key: [number, number] | undefined;
  for (const seg of segments) {
    if (typeof seg === 'number' && isSeq(node)) {
      node = (node.items[seg] as Node | null) ?? null;
      key = undefined;
    } else if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) return {};
      key = rangeOf(pair.key as Node | null);
      node = (pair.value as Node | null) ?? null;
    } else return {};
  }
  return { value: rangeOf(node), key };
}

function rangeOf(node: Node | null | undefined): [number, number] | undefined {
  const r = node?.range;
  return r ? [r[0], r[1]] : undefined;
}

function resolve(s: SchemaPart): SchemaPart {
  return s.$ref ? configSchema.$defs[s.$ref.replace('#/$defs/', '')] : s;
}

/** The default the schema gives the property at `path` ("quotaWall.retryWaitMinutes"). */
export function schemaDefault<T>(path: string): T {
  let s: SchemaPart = configSchema;
  for (const part of path.split('.')) s = resolve(s.properties?.[part] ?? {});
  if (s.default === undefined) throw new Error(`schemas/session-ops.schema.json gives ${path} no default`);
  return s.default as T;
}
