// schemas/routing.schema.json against the spec's "Routing table (YAML file)" tables.
import assert from 'node:assert/strict';
import Ajv2020 from 'ajv/dist/2020';
import {
  DIMENSIONS,
  EFFORTS,
  LEGACY_SKILLS,
  MODES,
  OVERSIZE_SIGNAL_IDS,
  PARENT_KINDS,
  RETIRED_STAGES,
  routingSchema,
  SKILLS,
  STAGES,
  validators,
} from '../../../../src/language/routing';
import { deref, schemaAt, type JsonSchema } from '../../../../src/language/routing/schema';

const defs = routingSchema.$defs as Record<string, JsonSchema>;

describe('routing schema', () => {
  it('is a valid draft 2020-12 schema and compiles once', () => {
    assert.equal(routingSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    const ajv = new Ajv2020({ strict: true, keywords: ['x-retired'] });
    assert.ok(ajv.validateSchema(routingSchema as object), JSON.stringify(ajv.errors));
    assert.equal(validators(), validators(), 'compiled once');
  });

  it('every property carries a description', () => {
    const missing: string[] = [];
    const walk = (s: JsonSchema, at: string) => {
      for (const [k, sub] of Object.entries(s.properties ?? {})) {
        if (!sub.description) missing.push(`${at}.${k}`);
        walk(sub, `${at}.${k}`);
      }
      if (s.items) walk(s.items, `${at}[]`);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${at}.*`);
    };
    walk(routingSchema, 'root');
    for (const [n, d] of Object.entries(defs)) {
      if (!d.description) missing.push(`$defs.${n}`);
      walk(d, `$defs.${n}`);
    }
    assert.deepEqual(missing, []);
  });

  it('top level: required version, default, routes; no additional properties; version const 1', () => {
    assert.deepEqual(routingSchema.required, ['version', 'default', 'routes']);
    assert.equal(routingSchema.additionalProperties, false);
    assert.deepEqual(Object.keys(routingSchema.properties ?? {}), [
      '$schema',
      'version',
      'default',
      'routes',
      'preflight',
      'dag',
      'filing',
      'review',
    ]);
    assert.equal(routingSchema.properties?.version.const, 1);
    assert.equal(routingSchema.properties?.version.type, 'integer');
  });

  it('stages, skills, modes, effort and their retired names', () => {
    assert.deepEqual(STAGES, ['review-dag', 'review-code', 'verify', 'audit-process', 'merge-pr']);
    assert.deepEqual(RETIRED_STAGES, [
      'roadmap-exit',
      'review-roadmap',
      'requirements-exit',
      'design-exit',
      'review-design-space',
      'review-iteration-plan',
      'plan-iterations',
    ]);
    for (const r of RETIRED_STAGES) assert.ok(!STAGES.includes(r));
    assert.deepEqual(SKILLS, ['implement', 'review-artifact', 'review-code', 'verify', 'analyze-dag']);
    assert.ok(defs.entry.properties?.skill.enum?.includes(null), 'skill may be null');
    for (const l of LEGACY_SKILLS) assert.ok(!SKILLS.includes(l));
    assert.deepEqual(MODES, ['bugfix', 'refactor', 'port']);
    assert.ok(defs.entry.properties?.mode.enum?.includes(null), 'mode may be null');
    assert.deepEqual(EFFORTS, ['low', 'high', 'max']);
    assert.deepEqual(DIMENSIONS, ['TOPO', 'REQMAP', 'RELEASE']);
    assert.deepEqual(OVERSIZE_SIGNAL_IDS, [
      'node_split',
      'new_cross_session_edge',
      'draft_contract_breaking',
      'frozen_contract_breaking',
      'node_scope_drift',
    ]);
    assert.deepEqual(PARENT_KINDS, ['Kind/Epic', 'Kind/Feature']);
  });

  it('no additional properties exactly where the spec says so', () => {
    const closed = Object.entries(defs)
      .filter(([, d]) => d.additionalProperties === false)
      .map(([n]) => n)
      .sort();
    assert.deepEqual(closed, ['dag', 'entry', 'filing', 'preflightItem', 'preflightPolicy', 'route'].sort());
  });

  it('route: no required fields; the preflight list has no cap (preflight.max_items governs it)', () => {
    assert.equal(defs.route.required, undefined);
    assert.deepEqual(Object.keys(defs.route.properties ?? {}), [
      'entry',
      'skip',
      'keep_gates',
      'preflight',
      'notes',
      'effort',
    ]);
    const pf = deref(defs.route.properties?.preflight as JsonSchema).schema;
    assert.equal(pf.maxItems, undefined);
    assert.equal(pf.items?.$ref, '#/$defs/preflightItem');
    assert.deepEqual(defs.preflightItem.required, ['id', 'item', 'evidence']);
  });

  it('integer minimums of the Limits table', () => {
    const p = defs.preflightPolicy.properties as Record<string, JsonSchema>;
    assert.deepEqual(Object.fromEntries(Object.entries(p).map(([k, v]) => [k, [v.type, v.minimum]])), {
      max_items: ['integer', 1],
      min_sample: ['integer', 0],
      consecutive_recur: ['integer', 1],
      aging_consecutive_clean: ['integer', 1],
    });
    assert.equal(defs.filing.properties?.['work-ticket-wip-cap'].minimum, 0);
    assert.equal(defs.filing.properties?.['sprint-mode'].type, 'boolean');
  });

  it('dag blocks and their required fields', () => {
    assert.deepEqual(defs.dag.required, [
      'route',
      'task_route',
      'ticket_creation',
      'verify_milestone',
      'size_derivation',
      'review_depth',
    ]);
    assert.deepEqual(defs.dagRoute.required, ['entry', 'skip', 'keep_gates', 'single_gate']);
    assert.ok(defs.dagRoute.properties?.preflight, 'dag.route has an optional preflight');
    assert.deepEqual(defs.taskRoute.required, ['entry', 'skip', 'keep_gates', 'inherit']);
    assert.deepEqual(defs.taskRoute.properties?.inherit.enum, ['parent_dag']);
    const dims = defs.singleGate.properties?.dimensions as JsonSchema;
    assert.deepEqual([dims.minItems, dims.maxItems, dims.uniqueItems], [3, 3, true]);
    assert.deepEqual(defs.singleGate.properties?.id.enum, ['review-dag']);
    assert.deepEqual(defs.singleGate.properties?.depth_from.enum, ['size_derivation']);
    const ip = defs.ticketCreation.properties?.inherit_parent as JsonSchema;
    assert.deepEqual([ip.uniqueItems, ip.minItems], [true, 1]);
    assert.deepEqual(defs.verifyMilestone.properties?.milestone_skill.enum, ['verify']);
    assert.deepEqual(defs.verifyMilestone.properties?.integration_trigger.enum, ['all_incoming_done_and_green']);
    assert.deepEqual(defs.sizeDerivation.required, ['enabled', 'thresholds', 'size_labels', 'oversize_signals']);
    assert.deepEqual(defs.oversizeSignal.required, ['id', 'trigger']);
    assert.deepEqual(defs.reviewDepth.required, ['D1', 'D2', 'D3', 'D4']);
    assert.deepEqual(defs.depth.required, ['reviewers', 'rounds', 'dim_split']);
    assert.deepEqual(defs.review.required, ['max_rounds']);
    assert.deepEqual((defs.review.properties?.max_rounds as JsonSchema).required, ['default', 'high_risk']);
  });

  it('schemaAt navigates properties, routes and items, following $ref', () => {
    assert.equal(schemaAt(['routes', 'Kind/Bug', 'skip', 0])?.defName, 'stage');
    assert.equal(schemaAt(['dag', 'route', 'single_gate', 'dimensions'])?.schema.maxItems, 3);
    assert.match(schemaAt(['routes', 'Kind/Bug', 'preflight'])?.description ?? '', /max_items, not by the schema/);
    assert.equal(schemaAt(['nope']), undefined);
  });
});
