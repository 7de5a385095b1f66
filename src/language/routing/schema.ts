// The routing-table JSON Schema (schemas/routing.schema.json, draft 2020-12), its validators
// (Ajv2020, compiled once per process, lazily) and navigation by instance path for messages,
// hover and completion. The vocabulary (stages, skills, ...) is read from the schema so that the
// schema stays the single source. Pure: never import 'vscode'.
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import schemaJson from '../../../schemas/routing.schema.json';
import type { PathSeg } from './rnode';

export interface JsonSchema {
  $id?: string;
  $ref?: string;
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minimum?: number;
  pattern?: string;
  $defs?: Record<string, JsonSchema>;
  'x-retired'?: string[];
  [k: string]: unknown;
}

export const routingSchema = schemaJson as unknown as JsonSchema;
export const SCHEMA_ID = routingSchema.$id as string;
export const SCHEMA_FILE_NAME = 'routing.schema.json';
/** The top-level keys the schema knows. */
export const TOP_KEYS: ReadonlySet<string> = new Set(Object.keys(routingSchema.properties ?? {}));

export interface Validators {
  root: ValidateFunction;
  routes: ValidateFunction;
}

let compiled: Validators | undefined;

/** The compiled validators; the first call compiles (tens of ms), later calls are free. */
export function validators(): Validators {
  if (!compiled) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, keywords: ['x-retired'] });
    ajv.addSchema(routingSchema as object);
    const root = ajv.getSchema(SCHEMA_ID);
    const routes = ajv.getSchema(`${SCHEMA_ID}#/$defs/routes`);
    if (!root || !routes) throw new Error('routing schema failed to compile');
    compiled = { root, routes };
  }
  return compiled;
}

export type { ErrorObject };

function def(name: string): JsonSchema {
  const d = routingSchema.$defs?.[name];
  if (!d) throw new Error(`routing schema has no $defs/${name}`);
  return d;
}

/** A schema with its $ref followed; `defName` names the last definition followed. */
export interface Resolved {
  schema: JsonSchema;
  /** Description of the property itself (from the referencing schema), else the definition's. */
  description?: string;
  defName?: string;
}

export function deref(s: JsonSchema): Resolved {
  let cur = s;
  let defName: string | undefined;
  const description = s.description;
  for (let guard = 0; cur.$ref && guard < 10; guard++) {
    const m = /^#\/\$defs\/(.+)$/.exec(cur.$ref);
    if (!m) break;
    defName = m[1];
    const { $ref: _ignored, ...siblings } = cur;
    void _ignored;
    cur = { ...def(defName), ...siblings, description: siblings.description ?? def(defName).description };
  }
  return { schema: cur, description: description ?? cur.description, defName };
}

/** The schema that applies at `path` (keys and indices from the document root), or undefined. */
export function schemaAt(path: readonly PathSeg[]): Resolved | undefined {
  let cur: Resolved = deref(routingSchema);
  for (const seg of path) {
    const s = cur.schema;
    let next: JsonSchema | undefined;
    if (typeof seg === 'number' || /^\d+$/.test(String(seg)) || seg === '*') {
      if (s.items) next = s.items;
      else if (typeof seg === 'string' && s.properties?.[seg]) next = s.properties[seg];
    } else if (s.properties && Object.prototype.hasOwnProperty.call(s.properties, seg)) {
      next = s.properties[seg];
    } else if (s.additionalProperties && typeof s.additionalProperties === 'object') {
      next = s.additionalProperties;
    }
    if (!next) return undefined;
    const r = deref(next);
    cur = { schema: r.schema, description: r.description, defName: r.defName ?? undefined };
  }
  return cur;
}

export function typesOf(s: JsonSchema): string[] {
  if (Array.isArray(s.type)) return s.type;
  if (typeof s.type === 'string') return [s.type];
  if (s.properties || s.additionalProperties !== undefined) return ['object'];
  if (s.items) return ['array'];
  return [];
}

// ---- vocabulary, read from the schema ----

function stringsOf(values: unknown[] | undefined): string[] {
  return (values ?? []).filter((v): v is string => typeof v === 'string');
}

const entryProps = def('entry').properties ?? {};
export const STAGES = stringsOf(def('stage').enum);
export const RETIRED_STAGES = def('stage')['x-retired'] ?? [];
export const SKILLS = stringsOf(entryProps.skill?.enum);
export const LEGACY_SKILLS = entryProps.skill?.['x-retired'] ?? [];
export const MODES = stringsOf(entryProps.mode?.enum);
export const EFFORTS = stringsOf(def('route').properties?.effort?.enum);
export const DIMENSIONS = stringsOf(def('singleGate').properties?.dimensions?.items?.enum);
export const OVERSIZE_SIGNAL_IDS = stringsOf(def('oversizeSignal').properties?.id?.enum);
export const PARENT_KINDS = stringsOf(def('ticketCreation').properties?.inherit_parent?.items?.enum);
export const ROUTE_FIELDS = Object.keys(def('route').properties ?? {});
