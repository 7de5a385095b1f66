// The routing corpus: every valid file has no diagnostic; every invalid file has exactly the
// diagnostics its header expects (one violation per file; positions from generate.mjs, computed
// from `yaml`'s node positions, not from the validator); and together the invalid files cover
// every rule of every block of the schema, plus every extra check.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RoutingAnalyzer, routingSchema, validateRouting } from '../../../../src/language/routing';
import type { Diagnostic } from '../../../../src/core/diagnostics';

const dir = path.resolve(__dirname, '../../../fixtures/routing');
const valid = readdirSync(path.join(dir, 'valid')).filter((f) => /\.ya?ml$/.test(f));
const invalid = readdirSync(path.join(dir, 'invalid')).filter((f) => /\.ya?ml$/.test(f));

interface Expectation {
  rule: string;
  expects: string[];
  messages: string[];
}

function header(text: string): Expectation {
  const rule = /^# rule: (.*)$/m.exec(text)?.[1] ?? '';
  const expects = (/^# expect: (.*)$/m.exec(text)?.[1] ?? '').split(' ; ').filter(Boolean);
  const messages = [...text.matchAll(/^# expect-message: (.*)$/gm)].map((m) => m[1]);
  return { rule, expects, messages };
}

function show(d: Diagnostic): string {
  return `${d.range.start.line + 1}:${d.range.start.character + 1}-${d.range.end.line + 1}:${d.range.end.character + 1} ${d.severity} ${d.code}`;
}

/** Messages may name the line of a first definition only when the whole document was analysed. */
function comparable(ds: Diagnostic[]): string[] {
  return ds.map((d) => `${show(d)} ${d.message.replace(/ \(first on line \d+\)/, '')}`);
}

describe('routing corpus', () => {
  it('has files', () => {
    assert.ok(valid.length >= 5, 'valid files');
    assert.ok(invalid.length >= 150, 'invalid files');
  });

  describe('valid files have no diagnostic', () => {
    for (const f of valid) {
      it(f, () => {
        const text = readFileSync(path.join(dir, 'valid', f), 'utf8');
        assert.deepEqual(
          validateRouting(text).map((d) => `${show(d)} ${d.message}`),
          [],
        );
        assert.deepEqual(new RoutingAnalyzer({ chunking: false }).analyze(text).diagnostics.map(show), []);
      });
    }
  });

  describe('invalid files have exactly the expected diagnostics', () => {
    for (const f of invalid) {
      it(f, () => {
        const text = readFileSync(path.join(dir, 'invalid', f), 'utf8');
        const h = header(text);
        assert.ok(h.expects.length > 0, 'header has an expectation');
        const ds = validateRouting(text);
        assert.deepEqual(ds.map(show), h.expects, ds.map((d) => `${show(d)} ${d.message}`).join('\n'));
        for (const m of h.messages)
          assert.ok(
            ds.some((d) => d.message.includes(m)),
            `a message contains ${JSON.stringify(m)}: ${ds.map((d) => d.message).join(' | ')}`,
          );
        for (const d of ds) {
          assert.equal(d.range.start.line, d.range.end.line, 'a diagnostic stays on one line');
          assert.equal(d.source, 'session-ops.routing');
          if (d.code.endsWith('duplicate-route') || d.code.endsWith('duplicate-key'))
            assert.equal(d.severity, 'error', 'a duplicate key is an error');
          else if (d.code === 'routing.preflight-over-cap')
            assert.equal(d.severity, 'information', 'the cap dropping items is information');
          else if (d.code.startsWith('routing.')) assert.equal(d.severity, 'warning', 'extra checks are warnings');
        }
        // the incremental (chunked) and whole-document paths agree
        assert.deepEqual(
          comparable(new RoutingAnalyzer({ chunking: false }).analyze(text).diagnostics),
          comparable(ds),
        );
      });
    }
  });

  describe('coverage', () => {
    // Every rule of every block, named by its definition: "preflightItem#:required:id", "stage#:enum", ...
    type S = Record<string, unknown> & { $ref?: string };
    const defs = (routingSchema.$defs ?? {}) as Record<string, S>;

    function rulesOf(name: string, s: S, local: string[], out: Set<string>): void {
      if (s.$ref) return; // the referenced definition has its own rules
      const at = `${name}#/${local.join('/')}`;
      if (s.enum) out.add(`${at}:enum`);
      else if (s.const !== undefined) out.add(`${at}:const`);
      else if (s.type) out.add(`${at}:type`);
      if (s.additionalProperties === false) out.add(`${at}:additionalProperties`);
      for (const r of (s.required as string[] | undefined) ?? []) out.add(`${at}:required:${r}`);
      if (s.propertyNames) out.add(`${at}:propertyNames`);
      for (const k of ['minItems', 'maxItems', 'uniqueItems', 'minimum'])
        if (s[k] !== undefined && s[k] !== false) out.add(`${at}:${k}`);
      for (const [p, sub] of Object.entries((s.properties as Record<string, S> | undefined) ?? {}))
        rulesOf(name, sub, [...local, p], out);
      if (s.additionalProperties && typeof s.additionalProperties === 'object')
        rulesOf(name, s.additionalProperties as S, [...local, '*'], out);
      if (s.items) rulesOf(name, s.items as S, [...local, '*'], out);
    }

    /** "/routes/*\/preflight/*:required:id" -> "preflightItem#:required:id" */
    function defRule(rule: string): string | undefined {
      const m = /^\/(.*?):(.*)$/.exec(rule);
      if (!m) return undefined;
      const segs = m[1] ? m[1].split('/') : [];
      let name = 'root';
      let local: string[] = [];
      let s = routingSchema as unknown as S;
      const enter = (next: S) => {
        if (next.$ref) {
          name = next.$ref.replace('#/$defs/', '');
          local = [];
          s = defs[name];
        } else s = next;
      };
      for (const seg of segs) {
        const props = s.properties as Record<string, S> | undefined;
        let next: S | undefined;
        if (seg === '*' && s.items) next = s.items as S;
        else if (props && props[seg]) next = props[seg];
        else if (seg === '*' && s.additionalProperties && typeof s.additionalProperties === 'object')
          next = s.additionalProperties as S;
        if (!next) return undefined;
        local.push(seg);
        enter(next);
      }
      while (s.$ref) enter(s);
      return `${name}#/${local.join('/')}:${m[2]}`;
    }

    it('every schema rule of every block has an invalid file', () => {
      const all = new Set<string>();
      rulesOf('root', routingSchema as unknown as S, [], all);
      for (const [n, d] of Object.entries(defs)) rulesOf(n, d, [], all);
      const covered = new Set<string>();
      for (const f of invalid) {
        const h = header(readFileSync(path.join(dir, 'invalid', f), 'utf8'));
        const r = defRule(h.rule);
        if (r) covered.add(r);
      }
      const missing = [...all].filter((r) => !covered.has(r));
      assert.deepEqual(missing, []);
    });

    it('every extra check and retired name has an invalid file', () => {
      const rules = new Set(invalid.map((f) => header(readFileSync(path.join(dir, 'invalid', f), 'utf8')).rule));
      for (const r of [
        'routing.skip-and-keep',
        'routing.duplicate-preflight-id',
        'routing.preflight-over-cap',
        'routing.low-effort-pipeline',
        'routing.duplicate-route',
        'yaml.duplicate-key',
        'yaml.syntax',
        'retired-stage',
        'legacy-skill',
      ]) {
        assert.ok(rules.has(r), r);
      }
      const retired = (defs.stage['x-retired'] as string[]) ?? [];
      for (const id of retired) assert.ok(invalid.includes(`retired-stage.${id}.routing.yaml`), id);
    });
  });
});
