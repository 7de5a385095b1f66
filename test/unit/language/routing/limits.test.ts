// Hostile routing tables (issue 14): deep nesting, self-referential anchors, alias chains, the
// "billion laughs" shape, a huge key, many keys, lone CRs in binary input. Each must give a
// diagnostic list (never a throw) in bounded time, with every position inside the document.
import assert from 'node:assert/strict';
import { RoutingAnalyzer, validateRouting } from '../../../../src/language/routing/analyzer';
import { complete } from '../../../../src/language/routing/features';
import { offsetAt } from '../../../../src/language/routing/lines';
import { MAX_DIAGNOSTICS, MAX_NESTING, tooDeepAt } from '../../../../src/language/routing/limits';
import { assertDiagnosticsInside } from './ranges';

// Each case is held to the outcome only: the suite's timeout is a hang guard against the pathological
// blow-ups these inputs once caused, not a speed measure (speed is measured in bench/).
const HANG_GUARD_MS = 60_000;

function checked(text: string) {
  const diags = validateRouting(text);
  assertDiagnosticsInside(text, diags);
  return diags;
}

const hasMessage = (diags: { message: string }[], re: RegExp) =>
  assert.ok(
    diags.some((d) => re.test(d.message)),
    JSON.stringify(diags.map((d) => d.message)),
  );

describe('routing limits: hostile input', function () {
  this.timeout(HANG_GUARD_MS);
  const deep: Record<string, string> = {
    '2,400 levels of [': 'a: ' + '['.repeat(2400) + ']'.repeat(2400) + '\n',
    '2,400 levels of {': 'a: ' + '{'.repeat(2400) + '}'.repeat(2400) + '\n',
    '1,150 levels of [{a:': 'a: ' + '[{a: '.repeat(1150) + '1' + '}]'.repeat(1150) + '\n',
    '2,000 indented block levels': Array.from({ length: 2000 }, (_, i) => ' '.repeat(i) + 'a:').join('\n') + ' 1\n',
    '2,000 compact sequence levels': 'a:\n' + '- '.repeat(2000) + 'x\n',
    '2,000 levels under a route':
      'version: 1\ndefault: {}\nroutes:\n  Kind/A:\n    skip: ' + '['.repeat(2000) + ']'.repeat(2000) + '\n',
  };
  for (const [name, text] of Object.entries(deep)) {
    it(`${name}: "nesting deeper than ${MAX_NESTING} levels is not checked", no stack overflow`, () => {
      hasMessage(checked(text), new RegExp(`Nesting deeper than ${MAX_NESTING} levels is not checked`));
    });
  }

  it('nesting the estimate misses still gives the diagnostic, not a stack overflow (found by bench/fuzz.mjs)', () => {
    const base = 'version: 1\ndefault: &base\n  effort: high\nroutes:\n  Kind/A:\n    notes: a[b\n';
    hasMessage(
      checked(base + Array.from({ length: 2000 }, (_, i) => ' '.repeat(i) + 'k:').join('\n') + '\n'),
      /Nesting deeper than/,
    );
    hasMessage(checked('a: [\n' + '[\n'.repeat(3000) + ']\n'.repeat(3000)), /Nesting deeper than|YAML/);
    hasMessage(checked('[\n' + 'a: [\n'.repeat(3000)), /Nesting deeper than|YAML/);
  });

  it('real tables are nowhere near the nesting limit', () => {
    assert.equal(tooDeepAt('a:\n  b:\n    - c: [d, {e: [f]}]\n    - "[[[[": x # [[[[\n'), -1);
    assert.equal(tooDeepAt('a: ' + '['.repeat(MAX_NESTING - 2) + ']'.repeat(MAX_NESTING - 2) + '\n'), -1);
  });

  it('a self-referential anchor (skip: &s [*s]) is reported, not a crash', () => {
    const text = 'version: 1\ndefault:\n  skip: &s [*s]\nroutes: {}\n';
    const diags = checked(text);
    hasMessage(diags, /\*s sits inside its own anchor/);
    JSON.stringify(diags);
  });

  it('an alias to a missing anchor is reported', () => {
    hasMessage(checked('version: 1\ndefault:\n  skip: *nope\nroutes: {}\n'), /Unresolved alias \*nope/);
  });

  it('an alias chain of 625 links is linear, not quadratic', () => {
    const lines = ['version: 1', 'default:', '  notes: &a0 [x]', 'routes: {}', 'chain:'];
    for (let i = 1; i < 625; i++) lines.push(`  a${i}: &a${i} [*a${i - 1}]`);
    checked(lines.join('\n') + '\n');
  });

  it('the "billion laughs" shape is bounded', () => {
    const L = 'abcdefghi';
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++)
      lines.push(
        `${L[i]}: &${L[i]} [${Array(9)
          .fill('*' + L[i - 1])
          .join(',')}]`,
      );
    hasMessage(checked(lines.join('\n') + '\n'), /Aliases expanding to more than/);
  });

  it('a 1 MB scalar where a name, a number or a list is expected: one short message each, quoting it cut', () => {
    const X = 'x'.repeat(1_048_576);
    const texts = [
      `version: 1\ndefault: {}\nroutes:\n  Kind/A:\n    effort: ${X}\n`,
      `version: 1\ndefault: {}\nroutes:\n  Kind/A:\n    entry:\n      skill: ${X}\n`,
      `version: 1\ndefault: {}\nroutes:\n  Kind/A:\n    skip: [${X}]\n`,
      `version: 1\ndefault: {}\npreflight:\n  max_items: ${X}\nroutes: {}\n`,
    ];
    for (const text of texts) {
      const diags = validateRouting(text);
      assertDiagnosticsInside(text, diags);
      assert.equal(diags.length, 1, JSON.stringify(diags.map((d) => d.message.slice(0, 200))));
      assert.ok(diags[0].message.length < 400, `${diags[0].message.length} characters`);
      assert.match(diags[0].message, /"x{80}\.\.\. \(1,048,576 characters\)"/);
    }
  });

  it('a 1.3 MB mapping key is a YAML error in bounded time', () => {
    hasMessage(checked('k'.repeat(1_300_000) + ': 1\n'), /1024/);
  });

  it(`20,000 keys list at most ${MAX_DIAGNOSTICS} problems and say so`, () => {
    const lines = ['version: 1'];
    for (let i = 0; i < 20_000; i++) lines.push(`k${i}: ${i}`);
    const diags = checked(lines.join('\n') + '\n');
    assert.equal(diags.length, MAX_DIAGNOSTICS + 1);
    hasMessage(diags, /the rest, from here on, are not listed/);
  });

  it('a position past the end of its line means the end of that line (found by bench/fuzz.mjs)', () => {
    const text = 'version: 1\r\n---\r\n# c\r\nversion: 1\r\n';
    const a = new RoutingAnalyzer().analyze(text);
    for (const c of complete(text, a.lineStarts, { line: 1, character: 4 }))
      assert.equal(c.range.start.line, 1, JSON.stringify(c.range));
    assert.equal(offsetAt(a.lineStarts, text, { line: 1, character: 40 }), text.indexOf('---') + 3);
  });

  it('completion on a 200,000-character line is bounded (found by bench/fuzz.mjs: 31 s before)', () => {
    const text =
      'version: 1\nroutes:\n  Kind/A:\n      ski' + ' '.repeat(200_000) + '\n      ski' + ' '.repeat(200_000) + '\n';
    const a = new RoutingAnalyzer().analyze(text);
    assert.ok(Array.isArray(complete(text, a.lineStarts, { line: 3, character: 4 })));
    assert.ok(Array.isArray(complete(text, a.lineStarts, { line: 4, character: 100_000 })));
  });

  it('80 nested flow mappings as keys are bounded (found by bench/fuzz.mjs: "Invalid string length")', () => {
    checked('version: 1\r\nroutes:\r\n  Kind/Bug:\r\n   ' + '{'.repeat(80) + ' skip: [review-dag]\r\n');
  });

  it('binary input with lone CRs: every position inside its line', () => {
    const text = 'version: 1\rdefault:\r  entry:\r    skill: \x01\x02bad\r  skip: [verify, nope]\r\x00\xff\r"\r\n\r';
    checked(text);
    checked('\r\r\r  x: [\r');
    checked('a: "b\rc"\rd: e\r\rf: |\r  g\r');
  });
});
