// `session-ops lsp --stdio`: the bundled language server over stdio, for any LSP editor (Neovim,
// Helix, ...). It needs no configuration requests answered; settings may be passed in
// initializationOptions (see src/shared/settings.ts).
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from '../../server/main';
import { UsageError } from './args';
import { defineCommand, runCommand, type CommandIo } from './command';

const USAGE = `Usage: session-ops lsp --stdio

Runs the Session Ops language server (routing tables, source-analysis pages) over stdio.
Initialization options: {"extraGlobs": [...], "schemaDiagnostics": "auto"|"always"|"never", "debounceMs": 15,
                         "pages": {"sourceRoot": "..."}}

Example:
  session-ops lsp --stdio      (Neovim: vim.lsp.start({ name = "session-ops", cmd = { "session-ops", "lsp", "--stdio" } }))`;

const defaultIo = (): CommandIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
});

export const lspCommand = defineCommand<null, CommandIo>({
  name: 'lsp',
  usage: USAGE,
  args: { flags: ['--stdio'], options: [] },
  io: defaultIo,
  options(a) {
    if (!a.flags.has('--stdio')) throw new UsageError('--stdio is required');
    return null;
  },
  run() {
    const connection = createConnection(ProposedFeatures.all, process.stdin, process.stdout);
    startServer(connection);
    // The connection ends the process on the LSP `exit` notification (or when stdin closes).
    return new Promise<number>(() => undefined);
  },
});

export const runLsp = (argv: string[], io: Partial<CommandIo> = {}) => runCommand(lspCommand, argv, io);
