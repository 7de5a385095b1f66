// Turns ajv's errors into one clear diagnostic per problem, placed precisely: the offending value
// or key, the parent key for a missing property, never a whole block. An enum failure reads as
// "expected one of ...", retired names say they are retired, misspellings get a "did you mean"
// and a quick fix. Pure.
import { getPair, locate, type Located, type PathSeg, type RMap } from './rnode';
import { LEGACY_SKILLS, RETIRED_STAGES, schemaAt, type ErrorObject, type JsonSchema } from './schema';
import { eolOf, fillEmptyValue, insertProperty, nearest, removeSeqItem, scalarText } from './fixes';
import type { RelDiag, RelFix } from './types';
import {
  type MapContext,
  actualType,
  at,
  describe,
  enumNoun,
  fmtValue,
  fullPath,
  keySpan,
  lastKey,
  listValues,
  ruleOf,
  segsOf,
  shown,
  typeName,
  valueSpan,
} from './error-places';

const KEYWORD_ORDER: Record<string, number> = {
  required: 0,
  additionalProperties: 1,
  propertyNames: 2,
  const: 3,
  enum: 4,
  type: 5,
};

export function mapSchemaErrors(errors: readonly ErrorObject[], ctx: MapContext): RelDiag[] {
  // Group by instance path; drop the cascade (a type error next to an enum/const error at the same
  // value, a pattern error inside propertyNames, the branches of an anyOf).
  const byPath = new Map<string, ErrorObject[]>();
  const anyOfPaths = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf') anyOfPaths.add(e.instancePath);
  }
  for (const e of errors) {
    if (e.keyword === 'if' || e.keyword === 'not') continue;
    if (e.schemaPath.includes('/propertyNames/') && e.keyword !== 'propertyNames' && !('propertyName' in e)) continue;
    const list = byPath.get(e.instancePath) ?? [];
    list.push(e);
    byPath.set(e.instancePath, list);
  }
  const out: RelDiag[] = [];
  for (const [path, list] of byPath) {
    const hasValueKeyword = list.some((e) => e.keyword === 'enum' || e.keyword === 'const');
    const seenNames = new Set<string>();
    const sorted = [...list].sort((a, b) => (KEYWORD_ORDER[a.keyword] ?? 9) - (KEYWORD_ORDER[b.keyword] ?? 9));
    if (anyOfPaths.has(path)) {
      const d = anyOfDiag(path, list, ctx);
      if (d) out.push(d);
      continue;
    }
    for (const e of sorted) {
      if (e.keyword === 'type' && hasValueKeyword) continue;
      // a property name failing `propertyNames` comes as the inner error (with propertyName) and the outer one
      const name =
        (e as ErrorObject & { propertyName?: string }).propertyName ??
        (e.keyword === 'propertyNames' ? (e.params as { propertyName?: string }).propertyName : undefined);
      if (name !== undefined) {
        if (!seenNames.has(name)) {
          seenNames.add(name);
          out.push(propertyNameDiag(path, name, ctx));
        }
        continue;
      }
      const d = oneError(e, ctx);
      if (d) out.push(d);
    }
  }
  return out;
}

// ---- one error ----

function oneError(e: ErrorObject, ctx: MapContext): RelDiag | undefined {
  const segs = segsOf(e.instancePath);
  const path = fullPath(ctx, segs);
  const loc = at(ctx, segs);
  const resolved = schemaAt(path);
  const s: JsonSchema = resolved?.schema ?? {};
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const span = keySpan(ctx, loc);
      const where = path.length === 0 ? 'the routing table' : describe(path);
      const fixes: RelFix[] = [];
      const propSchema = s.properties?.[missing];
      if (loc.node.kind === 'map' && propSchema) {
        fixes.push({
          title: `Add "${missing}"`,
          preferred: true,
          edits: [insertProperty(ctx.text, loc.node, missing, propSchema, eolOf(ctx.text))],
        });
      }
      return {
        ...span,
        severity: 'error',
        code: 'schema.required',
        message: `Missing required property "${missing}" in ${where}.`,
        fixes,
        rule: ruleOf(path, 'required', missing),
      };
    }
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      const extraLoc = locate(ctx.root, [...segs, extra]).found;
      const span = extraLoc.pair ? { start: extraLoc.pair.key.start, end: extraLoc.pair.key.end } : keySpan(ctx, loc);
      const allowed = Object.keys(s.properties ?? {});
      const near = nearest(extra, allowed);
      const parentMap = loc.node.kind === 'map' ? (loc.node as RMap) : undefined;
      const fixes: RelFix[] = [];
      if (near && extraLoc.pair && parentMap && !getPair(parentMap, near)) {
        fixes.push({
          title: `Rename to "${near}"`,
          preferred: true,
          edits: [{ start: extraLoc.pair.key.start, end: extraLoc.pair.key.end, newText: scalarText(near) }],
        });
      }
      const where = path.length === 0 ? 'at the top level of the routing table' : `in ${describe(path)}`;
      return {
        ...span,
        severity: 'error',
        code: 'schema.additional-property',
        message: `Property "${extra}" is not allowed ${where}${near ? `; did you mean "${near}"?` : '.'} Allowed: ${allowed.join(', ')}.`,
        fixes,
        rule: ruleOf(path, 'additionalProperties'),
      };
    }
    case 'enum':
      return enumDiag(ctx, path, loc, (params.allowedValues as unknown[]) ?? s.enum ?? [], resolved?.defName);
    case 'const': {
      const span = valueSpan(ctx, loc);
      const want = params.allowedValue;
      return {
        ...span,
        severity: 'error',
        code: 'schema.const',
        message: `${cap(describe(path))} must be ${fmtValue(want)} (found ${fmtValue(loc.node.value)}).`,
        fixes:
          loc.node.kind === 'scalar'
            ? [
                {
                  title: `Change to ${scalarText(want)}`,
                  preferred: true,
                  edits: [{ start: loc.node.start, end: loc.node.end, newText: scalarText(want) }],
                },
              ]
            : [],
        rule: ruleOf(path, 'const'),
      };
    }
    case 'type': {
      const span = valueSpan(ctx, loc);
      const want = Array.isArray(params.type) ? (params.type as string[]) : String(params.type).split(',');
      const fixes: RelFix[] = [];
      if (want.includes('object') && loc.pair && loc.node.kind === 'scalar' && loc.node.style === 'empty' && resolved) {
        const edit = fillEmptyValue(ctx.text, loc.pair, resolved.schema, eolOf(ctx.text));
        if (edit) fixes.push({ title: `Fill in "${lastKey(path)}"`, preferred: true, edits: [edit] });
      }
      return {
        ...span,
        severity: 'error',
        code: 'schema.type',
        message: `Incorrect type: ${describe(path)} must be ${want.map(typeName).join(' or ')}, not ${actualType(loc.node.value)}.`,
        fixes,
        rule: ruleOf(path, 'type'),
      };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum': {
      const span = valueSpan(ctx, loc);
      const limit = params.limit;
      const words = {
        minimum: 'at least',
        maximum: 'at most',
        exclusiveMinimum: 'greater than',
        exclusiveMaximum: 'less than',
      }[e.keyword];
      return {
        ...span,
        severity: 'error',
        code: `schema.${e.keyword}`,
        message: `${cap(describe(path))} must be ${words} ${String(limit)} (found ${fmtValue(loc.node.value)}).`,
        rule: ruleOf(path, e.keyword),
      };
    }
    case 'minItems':
    case 'maxItems': {
      const span = valueSpan(ctx, loc);
      const count = Array.isArray(loc.node.value) ? loc.node.value.length : 0;
      const exactly = s.minItems !== undefined && s.minItems === s.maxItems;
      const what = exactly
        ? `exactly ${s.minItems}`
        : e.keyword === 'minItems'
          ? `at least ${String(params.limit)}`
          : `at most ${String(params.limit)}`;
      const n = exactly ? s.minItems : Number(params.limit);
      return {
        ...span,
        severity: 'error',
        code: `schema.${e.keyword === 'minItems' ? 'min-items' : 'max-items'}`,
        message: `${cap(describe(path))} must have ${what} item${n === 1 ? '' : 's'} (found ${count}).`,
        rule: ruleOf(path, e.keyword),
      };
    }
    case 'uniqueItems': {
      const i = Number(params.i);
      const j = Number(params.j);
      const later = Math.max(i, j);
      const earlier = Math.min(i, j);
      const itemLoc = locate(ctx.root, [...segs, String(later)]).found;
      const span = itemLoc.seq ? valueSpan(ctx, itemLoc) : valueSpan(ctx, loc);
      const fixes: RelFix[] = [];
      const itemEnum = schemaAt([...path, 0])?.schema.enum;
      const present = new Set(Array.isArray(loc.node.value) ? loc.node.value : []);
      const missing = itemEnum?.find((v) => !present.has(v));
      if (missing !== undefined && itemLoc.node.kind === 'scalar') {
        fixes.push({
          title: `Replace with ${scalarText(missing)}`,
          preferred: true,
          edits: [{ start: itemLoc.node.start, end: itemLoc.node.end, newText: scalarText(missing) }],
        });
      }
      if (itemLoc.seq && itemLoc.index !== undefined)
        fixes.push({
          title: 'Remove the duplicate',
          preferred: missing === undefined,
          edits: removeSeqItem(ctx.text, itemLoc.seq, itemLoc.index, loc.pair),
        });
      return {
        ...span,
        severity: 'error',
        code: 'schema.unique-items',
        message: `Duplicate ${fmtValue(itemLoc.node.value)} in ${describe(path)} (also item ${earlier + 1}): items must be unique.`,
        fixes,
        rule: ruleOf(path, 'uniqueItems'),
      };
    }
    case 'pattern': {
      const span = valueSpan(ctx, loc);
      return {
        ...span,
        severity: 'error',
        code: 'schema.pattern',
        message: `${cap(describe(path))} does not match the expected pattern ${String(params.pattern)}.`,
        rule: ruleOf(path, 'pattern'),
      };
    }
    default: {
      const span = valueSpan(ctx, loc);
      return {
        ...span,
        severity: 'error',
        code: `schema.${e.keyword}`,
        message: `${cap(describe(path))} ${e.message ?? 'is invalid'}.`,
        rule: ruleOf(path, e.keyword),
      };
    }
  }
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function enumDiag(
  ctx: MapContext,
  path: PathSeg[],
  loc: Located,
  allowed: readonly unknown[],
  defName: string | undefined,
): RelDiag {
  const span = valueSpan(ctx, loc);
  const v = loc.node.value;
  const noun = enumNoun(path, defName);
  const expected = allowed.length === 1 ? `expected ${listValues(allowed)}` : `expected one of ${listValues(allowed)}`;
  const strings = allowed.filter((a): a is string => typeof a === 'string');
  const fixes: RelFix[] = [];
  const rule = ruleOf(path, 'enum');
  const replaceWith = (to: unknown, preferred: boolean) => {
    if (loc.node.kind !== 'scalar' || loc.node.style === 'empty') return;
    const style = loc.node.style === 'single' || loc.node.style === 'double' ? loc.node.style : undefined;
    fixes.push({
      title: `Replace with ${scalarText(to)}`,
      preferred,
      edits: [
        {
          start: loc.node.start,
          end: loc.node.end,
          newText: scalarText(to, typeof to === 'string' ? style : undefined),
        },
      ],
    });
  };
  if (typeof v === 'string') {
    const retiredStage = RETIRED_STAGES.includes(v);
    const legacySkill = lastKey(path) === 'skill' && LEGACY_SKILLS.includes(v);
    if (retiredStage || legacySkill) {
      if (loc.seq && loc.index !== undefined) {
        const owner = locate(ctx.root, path.slice(ctx.prefix.length, -1).map(String)).found;
        fixes.push({
          title: `Remove retired ${noun} "${shown(v)}"`,
          preferred: true,
          edits: removeSeqItem(ctx.text, loc.seq, loc.index, owner.pair),
        });
      } else if (strings.length === 1) {
        replaceWith(strings[0], true);
      } else if (legacySkill) {
        replaceWith(null, false);
      }
      const what =
        legacySkill && !retiredStage
          ? `Skill "${shown(v)}" is a legacy entry and no longer valid`
          : `${cap(noun === 'stage' ? 'stage' : noun)} "${shown(v)}" is a retired stage id and no longer valid`;
      return { ...span, severity: 'error', code: 'schema.retired', message: `${what}: ${expected}.`, fixes, rule };
    }
    const near = nearest(v, strings);
    if (near) replaceWith(near, true);
    else if (strings.length === 1) replaceWith(strings[0], true);
    return {
      ...span,
      severity: 'error',
      code: 'schema.enum',
      message: `Unknown ${noun} "${shown(v)}": ${expected}.${near ? ` Did you mean "${near}"?` : ''}`,
      fixes,
      rule,
    };
  }
  if (strings.length === 1) replaceWith(strings[0], true);
  const found = loc.node.kind === 'scalar' && loc.node.style === 'empty' ? 'nothing' : fmtValue(v);
  return {
    ...span,
    severity: 'error',
    code: 'schema.enum',
    message: `Invalid ${noun} ${found}: ${expected}.`,
    fixes,
    rule,
  };
}

function propertyNameDiag(pointer: string, name: string, ctx: MapContext): RelDiag {
  const segs = segsOf(pointer);
  const path = fullPath(ctx, segs);
  const loc = locate(ctx.root, [...segs, name]).found;
  const span = loc.pair ? { start: loc.pair.key.start, end: loc.pair.key.end } : keySpan(ctx, at(ctx, segs));
  const isRoutes = path.length === 1 && path[0] === 'routes';
  const fixes: RelFix[] = [];
  if (isRoutes && loc.pair && !name.startsWith('Kind/')) {
    fixes.push({
      title: `Rename to "Kind/${name}"`,
      preferred: true,
      edits: [{ start: loc.pair.key.start, end: loc.pair.key.end, newText: scalarText(`Kind/${name}`) }],
    });
  }
  return {
    ...span,
    severity: 'error',
    code: 'schema.property-name',
    message: isRoutes
      ? `Route key "${name}" is not a Kind/* label name (expected "Kind/<name>").`
      : `Property name "${name}" is not allowed in ${describe(path)}.`,
    fixes,
    rule: ruleOf(path, 'propertyNames'),
  };
}

function anyOfDiag(pointer: string, list: ErrorObject[], ctx: MapContext): RelDiag | undefined {
  const segs = segsOf(pointer);
  const path = fullPath(ctx, segs);
  const loc = at(ctx, segs);
  const values: unknown[] = [];
  const types: string[] = [];
  for (const e of list) {
    const p = e.params as Record<string, unknown>;
    if (e.keyword === 'enum') values.push(...((p.allowedValues as unknown[]) ?? []));
    else if (e.keyword === 'const') values.push(p.allowedValue);
    else if (e.keyword === 'type') types.push(...String(p.type).split(','));
  }
  const span = valueSpan(ctx, loc);
  const expected = values.length
    ? `one of ${listValues(values)}`
    : types.length
      ? types.map(typeName).join(' or ')
      : 'a valid value';
  return {
    ...span,
    severity: 'error',
    code: 'schema.any-of',
    message: `Invalid ${describe(path)} ${fmtValue(loc.node.value)}: expected ${expected}.`,
    rule: ruleOf(path, 'anyOf'),
  };
}
