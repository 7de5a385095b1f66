// The routing reader against a whole-document parse by `yaml`: whatever the layout (anchors,
// aliases, merge keys, every line-ending style), the value the schema sees must equal
// `parseDocument(text).toJS()`, and chunked analysis must report what whole analysis reports.
// `yaml` does not read a lone CR as a line break (YAML 1.2 and LSP do): the reference is the text
// with its lone CRs written as LF, which keeps every offset.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { parseDocument } from 'yaml';
import { RoutingAnalyzer, validateRouting } from '../../../../src/language/routing/analyzer';
import { parseText } from '../../../../src/language/routing/parse';

const lf = (s: string) => s.replace(/\r(?!\n)/g, '\n');

/** yaml's whole-document value, or 'error' when yaml reports an error (or cannot build the value). */
function reference(src: string): unknown {
  const doc = parseDocument(lf(src), { uniqueKeys: false });
  if (doc.errors.length) return 'error';
  try {
    return doc.toJS({ maxAliasCount: 10000 }) ?? null;
  } catch {
    return 'error';
  }
}

function mulberry(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EOLS = ['\n', '\r\n', '\r'];

/** Joins lines with one line-ending style, or a random mix of all three. */
function join(lines: string[], rnd: () => number, style: number): string {
  if (style < EOLS.length) return lines.join(EOLS[style]) + EOLS[style];
  return lines.map((l) => l + EOLS[Math.floor(rnd() * 3)]).join('');
}

/** A random document with anchors, aliases (also across top-level blocks) and merge keys. */
function randomAnchored(rnd: () => number): string[] {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)];
  const anchors: string[] = [];
  const lines: string[] = [];
  const value = (): string => {
    const r = rnd();
    if (anchors.length && r < 0.3) return `*${pick(anchors)}`;
    if (r < 0.5) {
      const a = `a${anchors.length}`;
      anchors.push(a);
      return `&${a} ${pick(['[verify]', '[x, y]', '{k: 1}', 'plain', '"dq"', '1'])}`;
    }
    return pick(['[verify, review-code]', 'text', '{m: [1, 2]}', 'null', '[]']);
  };
  const block = (ind: number, depth: number) => {
    const sp = ' '.repeat(ind);
    const n = 1 + Math.floor(rnd() * 3);
    for (let i = 0; i < n; i++) {
      const key = `k${depth}${i}`;
      const r = rnd();
      if (depth < 2 && r < 0.3) {
        if (rnd() < 0.3) {
          const a = `b${anchors.length}`;
          lines.push(`${sp}${key}: &${a}`);
          block(ind + 2, depth + 1);
          anchors.push(a);
        } else {
          lines.push(`${sp}${key}:`);
          block(ind + 2, depth + 1);
        }
      } else if (anchors.length && r < 0.4) lines.push(`${sp}<<: *${pick(anchors)}`);
      else if (r < 0.5) {
        lines.push(`${sp}${key}:`);
        lines.push(`${sp}  - ${value()}`, `${sp}  - ${value()}`);
      } else lines.push(`${sp}${key}: ${value()}`);
    }
  };
  block(0, 0);
  return lines;
}

const fixtures = path.join(__dirname, '../../../fixtures/routing/valid');

describe('routing documents against a whole-document yaml parse', () => {
  it('a second alias to the same anchor reads as the anchor value', () => {
    const src = 'a: &g [verify]\nb: *g\nc: *g\n';
    assert.deepEqual(parseText(src).root?.value, { a: ['verify'], b: ['verify'], c: ['verify'] });
    const table =
      'version: 1\ndefault:\n  keep_gates: &g [verify]\nroutes:\n  Kind/A:\n    keep_gates: *g\n  Kind/B:\n    keep_gates: *g\n';
    assert.deepEqual(validateRouting(table), []);
  });

  it('an alias whose anchor sits in another top-level block reads as the anchor value', () => {
    const table =
      'version: 1\ndefault: &d\n  keep_gates: [verify]\n  skip: &s [review-dag]\nroutes:\n  Kind/A: *d\n  Kind/B:\n    skip: *s\n    keep_gates: *s\n';
    assert.deepEqual(validateRouting(table), []);
    const incremental = new RoutingAnalyzer();
    incremental.analyze(table.replace(/ \*d/, ' {}').replace(/\*s/g, '[verify]'));
    assert.deepEqual(incremental.analyze(table).diagnostics, []);
  });

  it('lone-CR line ends read like LF ones (every valid fixture)', () => {
    for (const name of readdirSync(fixtures)) {
      const text = readFileSync(path.join(fixtures, name), 'utf8').replace(/\r\n/g, '\n');
      assert.deepEqual(validateRouting(text.replace(/\n/g, '\r')), validateRouting(text), name);
    }
  });

  it('mixed LF/CRLF/CR line ends read like LF ones (every valid fixture)', () => {
    const rnd = mulberry(7);
    for (const name of readdirSync(fixtures)) {
      const text = readFileSync(path.join(fixtures, name), 'utf8').replace(/\r\n/g, '\n');
      const mixed = join(text.split('\n'), rnd, 3);
      assert.deepEqual(validateRouting(mixed), validateRouting(text + '\n'), name);
    }
  });

  it('every position on a lone-CR document is inside its line (LSP counts CR, LF and CRLF)', () => {
    const text = 'version: 1\rdefault:\r  entry:\r    skill: nope\r  skip: [verify, nope]\rroutes: {}\r';
    const diags = validateRouting(text);
    assert.ok(diags.length >= 2, JSON.stringify(diags));
    const lines = text.split(/\r\n|\r|\n/);
    for (const d of diags) {
      for (const p of [d.range.start, d.range.end]) {
        assert.ok(
          p.line < lines.length && p.character <= lines[p.line].length,
          `${JSON.stringify(d.range)} ${d.message}`,
        );
      }
    }
  });

  it('agrees with yaml on 1,500 random documents with anchors, aliases, merge keys and every line-ending style', () => {
    let compared = 0;
    for (const seed of [11, 12, 13]) {
      const rnd = mulberry(seed);
      for (let t = 0; t < 500; t++) {
        const src = join(randomAnchored(rnd), rnd, t % 4);
        const ref = reference(src);
        const got = parseText(src);
        const errors = got.syntax.filter((d) => d.severity === 'error');
        if (ref === 'error') {
          assert.ok(errors.length > 0, `yaml rejects it, the reader must too: ${JSON.stringify(src)}`);
          continue;
        }
        assert.deepEqual(errors, [], JSON.stringify(src));
        assert.deepEqual(got.root ? got.root.value : null, ref, JSON.stringify(src));
        compared++;
      }
    }
    assert.ok(compared > 1200, `compared ${compared}`);
  });

  it('chunked analysis reports what whole analysis reports, with anchors and every line-ending style', () => {
    const rnd = mulberry(21);
    const base = readFileSync(path.join(fixtures, 'complete.routing.yaml'), 'utf8').replace(/\r\n/g, '\n').split('\n');
    for (let t = 0; t < 80; t++) {
      const lines = base.map((l) => {
        if (/^ {4}keep_gates: \[/.test(l) && rnd() < 0.3)
          return rnd() < 0.5 ? l.replace('keep_gates: ', 'keep_gates: &g ') : '    keep_gates: *g';
        return l;
      });
      const src = join(lines, rnd, t % 4);
      const chunked = new RoutingAnalyzer().analyze(src).diagnostics;
      const whole = new RoutingAnalyzer({ chunking: false }).analyze(src).diagnostics;
      assert.deepEqual(chunked, whole, JSON.stringify(src));
    }
  });
});
