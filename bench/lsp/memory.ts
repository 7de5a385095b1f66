// The language server's peak RSS (VmHWM of its process) on hostile documents: 5 MB scalars where
// any string or a name is expected, the largest table analysed by default, a 9 MB table and a 9 MB
// fidelity-baseline page; one fresh server per document (opened, its second line changed,
// outlined). Several builds side by side in one run:
//   npm run build && npx tsx bench/lsp/memory.ts [--server LABEL=PATH/server.js ...]
// (default: this checkout's dist/server.js). Linux only (/proc). Prints a Markdown table.
import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hugeFidelityBaseline, MB, peakRssMb, routingTableOfSize } from '../../test/lsp/support/hostile-documents';
import { fileUri, LspClient, SERVER } from '../../test/lsp/support/lspClient';
const peak = peakRssMb;
const X = 'x'.repeat(5 * MB);
const head = 'version: 1\ndefault: {}\nroutes:\n  Kind/Big:\n    entry:\n      skill: implement\n';
const cases: Array<[string, string, string, string]> = [
  ['5 MB scalar as notes (plain)', 'routing.yaml', 'yaml', head + `    notes: ${X}\n`],
  ['5 MB scalar as effort', 'routing.yaml', 'yaml', head + `    effort: ${X}\n`],
  [
    '5 MB scalar as entry.skill',
    'routing.yaml',
    'yaml',
    `version: 1\ndefault: {}\nroutes:\n  Kind/Big:\n    entry:\n      skill: ${X}\n`,
  ],
  [
    '5 MB scalar in skip: [...]',
    'routing.yaml',
    'yaml',
    `version: 1\ndefault: {}\nroutes:\n  Kind/Big:\n    skip: [${X}]\n`,
  ],
  ['7.9 MB table (analysed)', 'routing.yaml', 'yaml', routingTableOfSize(7.9)],
  ['9 MB table', 'routing.yaml', 'yaml', routingTableOfSize(9)],
  ['9 MB 10-fidelity-baseline', 'source-analysis/10-fidelity-baseline.md', 'markdown', hugeFidelityBaseline()],
];
const args = process.argv.slice(2);
const servers: Array<[string, string]> = [];
for (let i = 0; i < args.length; i++)
  if (args[i] === '--server') {
    const [label, file] = args[++i].split('=');
    servers.push([label, path.resolve(file)]);
  }
if (!servers.length) servers.push(['this build', SERVER]);
(async () => {
  console.log('| document | build | peak RSS MB | diagnostics after the change | open+change+outline s | alive |');
  console.log('|---|---|---|---|---|---|');
  for (const [name, file, lang, text] of cases) {
    for (const [label, server] of servers) {
      const ws = mkdtempSync(path.join(os.tmpdir(), 'h9cmp-'));
      mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
      // The server script is given as node's first argument; the default SERVER after it is ignored.
      const c = LspClient.stdio([], [server]);
      await c.initialize({ rootPath: ws });
      const uri = fileUri(path.join(ws, file));
      const t = performance.now();
      const m1 = c.open(uri, text, lang);
      await c.diagnosticsFor(uri, () => true, m1, 600000);
      const at = { line: 1, character: 0 };
      const m2 = c.change(uri, 2, [{ range: { start: at, end: at }, text: '\n' }]);
      const d = await c.diagnosticsFor(uri, (p) => p.version === 2, m2, 600000);
      await c.request('textDocument/documentSymbol', { textDocument: { uri } });
      const s = ((performance.now() - t) / 1000).toFixed(1);
      const codes =
        [...new Set(d.diagnostics.map((x) => x.code))]
          .map((k) => `${k} x${d.diagnostics.filter((x) => x.code === k).length}`)
          .join(', ') || 'none';
      console.log(
        `| ${name} | ${label} | ${peak(c.proc.pid!).toFixed(0)} | ${codes} | ${s} | ${c.proc.exitCode === null ? 'yes' : 'no'} |`,
      );
      await c.stop();
    }
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}, ${os.cpus().length} cores, Node ${process.version}`,
  );
})();
