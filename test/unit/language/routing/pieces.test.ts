// The bounded parse of large texts outside the fast subset (issue 31 item 6): the `yaml` library
// never gets more than YAML_PIECE_MAX characters at once; a broken structure is still reported
// where it breaks, and a note says what is not checked.
import assert from 'node:assert/strict';
import { RoutingAnalyzer } from '../../../../src/language/routing';
import { parseText, parseTextSteps } from '../../../../src/language/routing/parse';
import { parsePieces, YAML_PIECE_MAX } from '../../../../src/language/routing/pieces';

/** A valid table of n routes (about 250 bytes each). */
function table(n: number): string {
  const lines = ['version: 1', 'default: {}', 'routes:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `  Kind/R${String(i).padStart(5, '0')}:`,
      '    entry:',
      '      skill: implement',
      '    skip: [verify]',
      `    notes: Route ${i} handles its tickets with the standard gates of the table.`,
      '    effort: high',
    );
  return lines.join('\n') + '\n';
}

const lineOf = (text: string, needle: string) => text.split('\n').indexOf(needle);

/** Runs parsePieces with a parse that records the largest text it was given. */
function pieces(text: string) {
  let largest = 0;
  const it = parsePieces(text, (piece) => {
    largest = Math.max(largest, piece.length);
    return parseText(piece);
  });
  let steps = 0;
  for (;;) {
    const r = it.next();
    if (r.done) return { parsed: r.value, largest, steps };
    steps++;
  }
}

describe('routing: large texts parsed entry by entry', () => {
  const big = table(4000); // about 1 MB

  it('a route key moved to column 0 in a large table: one error per line indented between levels, never a large text to yaml', () => {
    const lines = big.split('\n');
    const at = lineOf(big, '  Kind/R02500:');
    lines[at] = lines[at].slice(2);
    const text = lines.join('\n');
    const a = new RoutingAnalyzer();
    a.analyze(big);
    const broken = a.analyze(text);
    const bad = broken.diagnostics.filter((d) => d.message.includes('Bad indentation'));
    assert.equal(bad.length, 999); // every later route key, up to the 1,000 problems listed
    assert.equal(bad[0].range.start.line, lineOf(big, '  Kind/R02501:'));
    assert.equal(bad[0].range.start.character, 2);
    const note = broken.diagnostics.find((d) => d.code === 'routing.limit');
    assert.ok(note && note.severity === 'information' && /entry by entry/.test(note.message), note?.message);
    assert.equal(note.range.start.line, at);
    // the routes before the break are still validated (their chunks are untouched)
    assert.equal(broken.stats.reused, 2503);
    // and parsed that way, no text handed to the parser is larger than the limit
    const chunk = text.slice(text.indexOf('Kind/R02500:'));
    const r = pieces(chunk);
    assert.ok(r.largest <= YAML_PIECE_MAX, String(r.largest));
    // fixing it back gives the valid table's (empty) diagnostics
    assert.deepEqual(a.analyze(big).diagnostics, []);
  });

  it('a tab in a large document that cannot be split: the tab is reported in its entry, nothing else is checked, and the note says so', () => {
    const lines = big.split('\n');
    const at = lineOf(big, '  Kind/R01000:') + 1;
    lines[at] = '\t' + lines[at];
    const text = lines.join('\n');
    const ds = new RoutingAnalyzer().analyze(text).diagnostics;
    assert.equal(ds[0].code, 'routing.limit');
    assert.equal(ds[0].range.start.line, 0);
    assert.ok(ds.some((d) => d.range.start.line === at && /Tabs/.test(d.message)));
    assert.ok(!ds.some((d) => d.code.startsWith('schema.')), 'no schema checks without a tree');
    const r = pieces(text);
    assert.ok(r.largest <= YAML_PIECE_MAX, String(r.largest));
    assert.ok(r.steps > 5, 'yields between entries');
  });

  it('an entry too large to split is reported, not parsed; a large block scalar is parsed', () => {
    const flow = ['version: 1', 'default: {}', 'routes: {'];
    for (let i = 0; i < 12000; i++) flow.push(`  "Kind/R${i}": {effort: high, notes: "route ${i} of the table"},`);
    flow.push('}');
    const text = flow.join('\n') + '\n';
    const r = pieces(text);
    assert.ok(r.largest <= YAML_PIECE_MAX);
    const skipped = r.parsed.syntax.find((d) => d.rule === 'limit:yaml-piece' && d.severity === 'warning');
    assert.ok(skipped && /not checked/.test(skipped.message), JSON.stringify(r.parsed.syntax.slice(0, 3)));
    const note = ['version: 1', 'default: {}', 'dag:', '  notes: |'];
    for (let i = 0; i < 12000; i++) note.push(`    line ${i} of a long note that runs to more than the limit`);
    note.push('  tab:\t1', '');
    const scalar = pieces(note.join('\n'));
    assert.ok(scalar.largest > YAML_PIECE_MAX);
    assert.ok(!scalar.parsed.syntax.some((d) => d.severity === 'warning'), JSON.stringify(scalar.parsed.syntax));
  });

  it('a second document in a large text is an error, and what follows is not read', () => {
    const text = big + '---\nversion: 2\n';
    const r = pieces(text);
    const e = r.parsed.syntax.find((d) => d.rule === 'yaml:MULTIPLE_DOCS');
    assert.ok(e);
    assert.equal(e.start, big.length);
  });

  it('small texts are parsed as before (one parse)', () => {
    const it = parseTextSteps('version: 1\n');
    const r = it.next();
    assert.equal(r.done, true);
  });
});
