// `session-ops lsp --stdio`: the bundled language server over stdio, for any LSP editor (Neovim,
// Helix, ...). It needs no configuration requests answered; settings may be passed in
// initializationOptions (see src/shared/settings.ts).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from '../../server/main';

const USAGE = `Usage: session-ops lsp --stdio

Runs the Session Ops language server (routing tables, source-analysis pages) over stdio.
Initialization options: {"extraGlobs": [...], "schemaDiagnostics": "auto"|"always"|"never", "debounceMs": 15,
                         "pages": {"sourceRoot": "..."}}`;

export async function runLsp(argv: string[]): Promise<number> {
  if (argv.includes('-h') || argv.includes('--help')) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if (!argv.includes('--stdio')) {
    process.stderr.write(`session-ops lsp: --stdio is required\n\n${USAGE}\n`);
    return 2;
  }
  const unknown = argv.filter((a) => a !== '--stdio');
  if (unknown.length) {
    process.stderr.write(`session-ops lsp: unknown option ${unknown[0]}\n\n${USAGE}\n`);
    return 2;
  }
  const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
  startServer(connection);
  // The connection ends the process on the LSP `exit` notification (or when stdin closes).
  return new Promise<number>(() => undefined);
}
