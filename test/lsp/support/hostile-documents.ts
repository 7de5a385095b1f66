// Hostile documents for the language server's memory budget, shared by test/lsp/memory.test.ts
// and bench/lsp/memory.ts: a valid routing table of a given size, a 9 MB fidelity-baseline page,
// and the peak resident set of a process.
import { readFileSync } from 'node:fs';

export const MB = 1024 * 1024;

/** The peak resident set of a process (VmHWM in /proc/<pid>/status), in MB. */
export function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmHWM for ${pid}`);
  return Number(m[1]) / 1024;
}

/** A valid routing table of about `mb` megabytes (full routes, as bench/lsp.mjs writes them). */
export function routingTableOfSize(mb: number): string {
  const out = ['version: 1', 'default: {}', 'preflight:', '  max_items: 4', 'routes:'];
  let size = 0;
  for (let i = 0; size < mb * MB; i++) {
    const id = String(i).padStart(6, '0');
    const route = [
      `  Kind/Route${id}:`,
      '    entry:',
      '      skill: implement',
      '      mode: bugfix',
      '    skip: [verify]',
      '    keep_gates: [review-code, merge-pr]',
      '    preflight:',
      `      - id: check-inputs-${id}`,
      `        item: Check the inputs of route ${i} before implementing anything.`,
      `        evidence: retro C${i % 40} finding ${i}`,
      `        added_cycle: C${i % 40}`,
      `    notes: Route ${i} handles its tickets with the standard gates.`,
      '    effort: high',
    ].join('\n');
    out.push(route);
    size += route.length + 1;
  }
  return out.join('\n') + '\n';
}

/** A fidelity-baseline page whose inventory table is about 9 MB. */
export function hugeFidelityBaseline(): string {
  const rows = [
    '# Fidelity baseline',
    '',
    '## Master inventory',
    '',
    '| ID | Behavior | Type | Source test | Chunk |',
    '|----|----------|------|-------------|-------|',
  ];
  for (let i = 1, size = 0; size < 9 * MB; i++) {
    const row = `| FID-${String(i).padStart(6, '0')} | Behaviour ${i} of the port is kept as it was | happy path | \`tests/test_all.py::test_${i}\` | core |`;
    rows.push(row);
    size += row.length + 1;
  }
  rows.push('', '## Chunks', '', '- core: everything', '');
  return rows.join('\n');
}
