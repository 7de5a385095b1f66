// Hostile pages (issue 14): deep lists, nested emphasis, huge tables and pages, lone CRs. Each
// must give a diagnostic list (never a throw) in bounded time, with every position inside the page.
import assert from 'node:assert/strict';
import { analyzePage, documentSymbols, validatePage, validateAllPages } from '../../../../src/language/pages';
import { MAX_EMPHASIS_MARKERS, MAX_PAGE_CHARS, MAX_PAGE_NESTING } from '../../../../src/language/pages/limits';
import { assertDiagnosticsInside } from '../routing/ranges';

const FOLDER = '/w/port/source-analysis';

// Each case is held to the outcome only: the suite's timeout is a hang guard against the pathological
// blow-ups these inputs once caused, not a speed measure (speed is measured in bench/).
const HANG_GUARD_MS = 60_000;

function checked(text: string, kind: string) {
  const diags = validatePage(text, `${FOLDER}/${kind}.md`);
  assertDiagnosticsInside(text, diags);
  return diags;
}

const hasMessage = (diags: { message: string }[], re: RegExp) =>
  assert.ok(
    diags.some((d) => re.test(d.message)),
    JSON.stringify(diags.map((d) => d.message)),
  );

describe('page limits: hostile input', function () {
  this.timeout(HANG_GUARD_MS);
  it('3,000 nested list levels on one line: reported, no stack overflow', () => {
    hasMessage(
      checked('# Business logic\n\n' + '- '.repeat(3000) + 'x\n', '04-business-logic'),
      new RegExp(`Nesting deeper than ${MAX_PAGE_NESTING} levels`),
    );
  });

  it('300 nested list levels by indentation and quotes: reported, no stack overflow', () => {
    const lines = ['# Business logic', ''];
    for (let i = 0; i < 300; i++) lines.push(' '.repeat(2 * i) + '- x');
    hasMessage(checked(lines.join('\n') + '\n', '04-business-logic'), /Nesting deeper than/);
    hasMessage(checked('> '.repeat(3000) + 'x\n', '01-source-overview'), /Nesting deeper than/);
  });

  it('7,500 levels of nested emphasis: bounded', () => {
    const text = '# Source overview\n\n' + '*a '.repeat(7500) + 'x' + ' a*'.repeat(7500) + '\n';
    hasMessage(checked(text, '01-source-overview'), new RegExp(`More than ${MAX_EMPHASIS_MARKERS} emphasis markers`));
    checked('# T\n\n' + '*'.repeat(20000) + '\n' + '_a'.repeat(5000) + '\n', '01-source-overview');
  });

  it('one run of 54,000 * in a table cell is bounded (found by bench/fuzz.mjs: 43 s, 3.5 GB, then a stack overflow)', () => {
    const text =
      '# Data Model\n\n### Invoice\n\n| Field | Type | Notes |\n| --- | --- | --- |\n| customer ' +
      '*'.repeat(54_000) +
      ' x | long | y |\n';
    hasMessage(checked(text, '03-data-model'), /emphasis markers/);
  });

  it('emphasis under the limit still reads as emphasis', () => {
    const text = '# Source overview\n\n- **Project name**: x\n';
    assert.ok(!validatePage(text, `${FOLDER}/01-source-overview.md`).some((d) => /emphasis/.test(d.message)));
  });

  it(`a page over ${MAX_PAGE_CHARS / 1024} KB (a 25,000-row baseline) is one diagnostic on line 1, in bounded time and memory`, () => {
    const lines = [
      '# Fidelity baseline',
      '',
      '## Master inventory',
      '',
      '| ID | Behavior | Type | Source test | Chunk |',
      '|----|----------|------|-------------|-------|',
    ];
    for (let i = 0; i < 25000; i++)
      lines.push(
        `| FID-${String(i).padStart(3, '0')} | Behaviour ${i} works as described | happy path | \`t.py::t${i}\` | c |`,
      );
    const text = lines.join('\n') + '\n';
    const before = process.memoryUsage().heapUsed;
    const diags = checked(text, '10-fidelity-baseline');
    assert.equal(diags.length, 1);
    assert.equal(diags[0].range.start.line, 0);
    assert.match(diags[0].message, new RegExp(`larger than ${MAX_PAGE_CHARS / 1024} KB .*not checked`));
    assert.ok(process.memoryUsage().heapUsed - before < 200e6);
    const all = validateAllPages(new Map([[`${FOLDER}/10-fidelity-baseline.md`, text]]));
    assertDiagnosticsInside(text, all.get(`${FOLDER}/10-fidelity-baseline.md`) ?? []);
  });

  it('a 3.2 MB line is bounded', () => {
    checked('# Public API\n\n' + 'x'.repeat(3_200_000), '02-public-api');
  });

  it('a byte-order mark shifts no position (found by bench/fuzz.mjs)', () => {
    const text = '\ufeff# Business logic\r\n## Invoices\n\r\n- RULE-01: a rule. `x == 1`\r';
    const model = analyzePage(text, `${FOLDER}/04-business-logic.md`);
    const syms = documentSymbols(model!);
    assertDiagnosticsInside(
      text,
      syms
        .flatMap((s) => [s, ...s.children])
        .map((s) => ({ range: s.range, message: s.name, severity: 'error' as const, code: '', source: '' })),
    );
    checked(text, '04-business-logic');
  });

  it('lone CRs and binary input: every position inside its line', () => {
    checked(
      '# Fidelity baseline\r\r| ID | Behavior |\r|--|--|\r| bad\x00\xff | x |\r| FID-1 | y \r\r- c',
      '10-fidelity-baseline',
    );
    checked('# Overview\r- **Project name**: \r- Modules: 3\r\r| a |\r|---|\r| ` |\r', '01-source-overview');
    checked('\r\r\r```\r| x |\r', '02-public-api');
  });
});
