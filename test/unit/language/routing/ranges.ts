// Shared by the routing and page limit and fuzz tests: every position a diagnostic (or a quick
// fix edit) reports must be inside the document, counting CR, LF and CRLF as line ends (as LSP does).
import assert from 'node:assert/strict';
import type { Diagnostic, Range } from '../../../../src/core/diagnostics';

export function lspLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

export function assertRangeInside(text: string, r: Range, what: string, lines = lspLines(text)): void {
  for (const p of [r.start, r.end]) {
    assert.ok(
      Number.isInteger(p.line) && Number.isInteger(p.character) && p.line >= 0 && p.character >= 0,
      `${what}: ${JSON.stringify(r)}`,
    );
    assert.ok(p.line < lines.length, `${what}: line ${p.line} past the last line ${lines.length - 1}`);
    assert.ok(
      p.character <= lines[p.line].length,
      `${what}: ${JSON.stringify(p)} past the end of its line (${lines[p.line].length})`,
    );
  }
  assert.ok(
    r.start.line < r.end.line || (r.start.line === r.end.line && r.start.character <= r.end.character),
    `${what}: range ends before it starts ${JSON.stringify(r)}`,
  );
}

export function assertDiagnosticsInside(text: string, diags: readonly Diagnostic[]): void {
  const lines = lspLines(text);
  for (const d of diags) {
    assertRangeInside(text, d.range, d.message, lines);
    const fixes = (d.data as { fixes?: { edits: { range: Range }[] }[] } | undefined)?.fixes ?? [];
    for (const f of fixes) for (const e of f.edits) assertRangeInside(text, e.range, `fix of ${d.message}`, lines);
  }
}
