// The analyzer: incremental re-analysis (only changed chunks), cancellation points, the whole-
// document fallback, and agreement between the chunked and whole paths under random edits.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { documentSymbols, RoutingAnalyzer, validateRouting } from '../../../../src/language/routing';
import type { Diagnostic } from '../../../../src/core/diagnostics';

const complete = readFileSync(path.resolve(__dirname, '../../../fixtures/routing/valid/complete.routing.yaml'), 'utf8');

function table(n: number, extra = ''): string {
  const lines = ['version: 1', 'default: {}', 'preflight:', '  max_items: 2', 'routes:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `  Kind/R${i}:`,
      '    entry:',
      '      skill: implement',
      '    skip: [verify]',
      `    notes: Route ${i}.`,
      '    effort: high',
    );
  return lines.join('\n') + '\n' + extra;
}

const show = (ds: Diagnostic[]) => ds.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`);

describe('routing analyzer', () => {
  it('re-analyses only the chunk an edit touched', () => {
    const a = new RoutingAnalyzer();
    const text = table(50);
    const first = a.analyze(text);
    assert.equal(first.stats.mode, 'chunked');
    assert.equal(first.stats.chunks, 4 + 50);
    assert.equal(first.stats.reused, 0);
    assert.deepEqual(first.diagnostics, []);
    const edited = text.replace('Route 25.\n    effort: high', 'Route 25.\n    effort: hgih');
    const second = a.analyze(edited);
    assert.equal(second.stats.reused, second.stats.chunks - 1);
    assert.deepEqual(show(second.diagnostics), [
      `${edited.split('\n').indexOf('    effort: hgih') + 1}:13 schema.enum`,
    ]);
    // lines inserted above move the diagnostics of reused chunks
    const moved = a.analyze('# a comment\n# another\n' + edited);
    assert.deepEqual(show(moved.diagnostics), [`${edited.split('\n').indexOf('    effort: hgih') + 3}:13 schema.enum`]);
  });

  it('re-analysing the same text returns the same analysis', () => {
    const a = new RoutingAnalyzer();
    const t = table(3);
    assert.equal(a.analyze(t), a.analyze(t));
  });

  it('yields between batches of chunks so that a newer version can cancel the work', () => {
    const a = new RoutingAnalyzer();
    const it = a.steps(table(1000));
    let yields = 0;
    for (;;) {
      const r = it.next();
      if (r.done) {
        assert.equal(r.value.stats.chunks, 1004);
        break;
      }
      yields++;
    }
    assert.ok(yields >= 4, `yielded ${yields} times`);
    // an abandoned run leaves the analyzer usable
    const b = new RoutingAnalyzer();
    const partial = b.steps(table(1000));
    partial.next();
    assert.deepEqual(b.analyze(table(10)).diagnostics, []);
  });

  it('a syntax error in one route leaves the other routes validated', () => {
    const text =
      table(3).replace(
        '  Kind/R0:\n    entry:\n      skill: implement\n    skip: [verify]',
        '  Kind/R0:\n    entry:\n      skill: implement\n    skip: [verify',
      ) + '  Kind/R9:\n    effort: hgih\n';
    const ds = validateRouting(text);
    assert.deepEqual(
      ds.map((d) => d.code),
      ['yaml.syntax', 'schema.enum'],
    );
  });

  it('anchors and aliases are analysed on the whole document', () => {
    const text = 'version: 1\ndefault: &d\n  effort: hgih\nroutes:\n  Kind/A: *d\n';
    const a = new RoutingAnalyzer().analyze(text);
    assert.equal(a.stats.mode, 'whole');
    // the route that aliases the default route has its error too, shown at the alias
    assert.deepEqual(show(a.diagnostics), ['3:11 schema.enum', '5:11 schema.enum']);
  });

  it('documents that cannot be split are analysed whole', () => {
    for (const text of [
      '\ufeffversion: 1\ndefault: {}\nroutes: {}\n',
      '---\nversion: 1\ndefault: {}\nroutes: {}\n',
      'version: 1\nversion: 1\ndefault: {}\nroutes: {}\n',
      '  version: 1\n  default: {}\n  routes: {}\n',
    ]) {
      const a = new RoutingAnalyzer().analyze(text);
      assert.equal(a.stats.mode, 'whole', JSON.stringify(text));
    }
    assert.deepEqual(show(validateRouting('version: 1\nversion: 1\ndefault: {}\nroutes: {}\n')), [
      '2:1 yaml.duplicate-key',
    ]);
    assert.deepEqual(show(validateRouting('\ufeffversion: 1\ndefault: {}\nroutes: {}\n')), []);
  });

  it('the empty document is one error at its start', () => {
    for (const text of ['', '\n\n', '# nothing\n']) {
      const ds = validateRouting(text);
      assert.equal(ds.length, 1);
      assert.equal(ds[0].code, 'schema.type');
      assert.deepEqual(ds[0].range, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
    }
  });

  it('CRLF documents get the same positions as LF ones', () => {
    const lf = 'version: 1\ndefault:\n  effort: hgih\nroutes: {}\n';
    assert.deepEqual(show(validateRouting(lf.replace(/\n/g, '\r\n'))), show(validateRouting(lf)));
    const ds = validateRouting(lf.replace(/\n/g, '\r\n'));
    assert.deepEqual(ds[0].range.end, { line: 2, character: 14 });
  });

  it('chunked and whole analyses agree under random edits', () => {
    let seed = 7;
    const rnd = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const base = complete.split('\n');
    const tokens = [
      'verify',
      'verfy',
      'roadmap-exit',
      'low',
      '0',
      '-1',
      'x',
      '[]',
      '{}',
      'null',
      'Kind/Bug',
      'bogus: 1',
      '"q"',
    ];
    let compared = 0;
    for (let t = 0; t < 400; t++) {
      const lines = [...base];
      for (let k = 0; k < 1 + Math.floor(rnd() * 3); k++) {
        const i = Math.floor(rnd() * (lines.length - 1));
        const op = rnd();
        if (op < 0.25) lines.splice(i, 1);
        else if (op < 0.45) lines.splice(i, 0, lines[i]);
        else if (op < 0.85)
          lines[i] = lines[i].replace(/(:\s*)(\S.*)$/, (_m, c) => `${c}${tokens[Math.floor(rnd() * tokens.length)]}`);
        else
          lines[i] = lines[i].replace(/^(\s*)(\S+):/, (_m, sp) => `${sp}${tokens[Math.floor(rnd() * tokens.length)]}:`);
      }
      const text = lines.join('\n');
      const whole = new RoutingAnalyzer({ chunking: false }).analyze(text).diagnostics;
      const chunked = new RoutingAnalyzer().analyze(text).diagnostics;
      if ([...whole, ...chunked].some((d) => d.code.startsWith('yaml.'))) continue; // with a syntax error the whole path reports only that
      compared++;
      const norm = (ds: Diagnostic[]) =>
        ds.map((d) => `${show([d])[0]} ${d.message.replace(/ \(first on line \d+\)/, '')}`);
      assert.deepEqual(norm(chunked), norm(whole), text);
    }
    assert.ok(compared > 200, `compared ${compared}`);
  });

  it('an incremental analyzer agrees with a fresh one after a series of edits', () => {
    const a = new RoutingAnalyzer();
    let text = complete;
    const edits: [string, string][] = [
      ['effort: high', 'effort: hgih'],
      ['skip: [review-dag]', 'skip: [review-dag, roadmap-exit]'],
      ['max_items: 3', 'max_items: 1'],
      ['  Kind/Chore:', '  Kind/Bug:'],
      ['effort: hgih', 'effort: high'],
    ];
    for (const [from, to] of edits) {
      text = text.replace(from, to);
      assert.deepEqual(a.analyze(text).diagnostics, validateRouting(text));
    }
  });
  it('an incremental analyzer agrees with a fresh one under random character edits (reuse by offsets)', () => {
    let seed = 29;
    const rnd = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const pieces = [
      'hgih',
      'high',
      '\n',
      '  Kind/R2:\n    effort: low\n',
      'x',
      ' ',
      ':',
      '\n  Kind/Z:\n',
      '- a\n',
      '[',
      '',
    ];
    const a = new RoutingAnalyzer();
    let text = table(12);
    let reusedSome = 0;
    for (let t = 0; t < 300; t++) {
      if (t % 4 === 0) text = table(12);
      const at = Math.floor(rnd() * text.length);
      const del = rnd() < 0.5 ? Math.floor(rnd() * 12) : 0;
      text =
        text.slice(0, at) + pieces[Math.floor(rnd() * pieces.length)] + text.slice(Math.min(text.length, at + del));
      const inc = a.analyze(text);
      if (inc.stats.reused > 0) reusedSome++;
      assert.deepEqual(inc.diagnostics, validateRouting(text), JSON.stringify(text));
    }
    assert.ok(reusedSome > 100, `reused chunks in ${reusedSome} analyses`);
  });
  it('analyze() during a validation of the same text finishes that validation instead of starting anew', () => {
    const a = new RoutingAnalyzer();
    const text = table(1000, '');
    const it = a.steps(text);
    assert.equal(it.next().done, false); // under way, between slices
    const mid = a.analyze(text); // a hover arrives
    assert.equal(mid.stats.chunks, 4 + 1000);
    let r = it.next();
    while (!r.done) r = it.next();
    assert.equal(r.value, mid); // the validation returns the very same analysis
    assert.equal(a.latest, mid);
  });

  it('steps() of a text under analysis drives that analysis, so a request and the validation share it', () => {
    const a = new RoutingAnalyzer();
    const text = table(1000, '');
    const validation = a.steps(text);
    assert.equal(validation.next().done, false); // the validation is under way, between slices
    const request = a.steps(text); // a request waits for the same version, in slices of its own
    let steps = 0;
    let r = request.next();
    for (; !r.done; r = request.next()) steps++;
    let v = validation.next();
    while (!v.done) v = validation.next();
    assert.equal(v.value, r.value); // one analysis, not two
    assert.equal(a.latest, r.value);
    assert.ok(steps > 1, 'the request yields between batches too');
    assert.equal(r.value.stats.chunks, 4 + 1000);
  });

  it('past the listed problems, unknown top-level keys and routes are not parsed; the listed ones are those of the whole analysis', () => {
    const unknown = Array.from({ length: 3000 }, (_, i) => `key_${i}: ${i}`).join('\n');
    const bad = table(30).replace(/effort: high/g, 'effort: hihg');
    const text = `${unknown}\n${bad}`;
    const a = new RoutingAnalyzer();
    const chunked = a.analyze(text);
    assert.ok((chunked.stats.skipped ?? 0) > 0, JSON.stringify(chunked.stats));
    // the unknown keys past the first 1,001 are one chunk, never parsed
    assert.ok(chunked.stats.chunks < 1001 + 40, JSON.stringify(chunked.stats));
    const whole = new RoutingAnalyzer({ chunking: false }).analyze(text).diagnostics;
    assert.deepEqual(show(chunked.diagnostics), show(whole));
    assert.equal(chunked.diagnostics.length, 1001);
    assert.equal(chunked.diagnostics[1000].code, 'routing.limit');
    // the known keys after them still decide the root's problems (version, default, routes are there)
    assert.ok(!chunked.diagnostics.some((d) => d.message.includes('Missing required')));
    // the outline still names the gathered keys
    const symbols = documentSymbols(chunked);
    assert.ok(symbols.some((x) => /more unknown keys/.test(x.detail ?? '')));
    // without the unknown keys, nothing is skipped, and no skipped chunk is taken over
    const after = a.analyze(bad);
    assert.equal(after.stats.skipped, undefined);
    assert.deepEqual(show(after.diagnostics), show(new RoutingAnalyzer().analyze(bad).diagnostics));
    assert.equal(after.diagnostics.filter((d) => d.code.startsWith('schema.')).length, 30);
  });

  it('a route with more problems than are shown maps only the shown ones', () => {
    const keys = Array.from({ length: 20000 }, (_, i) => `    k${i}: 1`).join('\n');
    const text = `version: 1\ndefault: {}\nroutes:\n  Kind/A:\n${keys}\n`;
    const ds = new RoutingAnalyzer().analyze(text).diagnostics;
    assert.equal(ds.length, 1001);
    assert.equal(ds[1000].code, 'routing.limit');
  });
});
