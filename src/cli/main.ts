// `session-ops`: the command-line face of the same pure modules the extension and the language
// server use. Each subcommand lives in its own file and returns an exit code.
//   0  success / no error found
//   1  the backend could not be read, or validation found an error
//   2  usage or I/O error

const USAGE = `Usage: session-ops <command> [options]

Commands:
  status    Two-sample health verdicts and the action per session (read-only)
  validate  Validate routing tables and source-analysis pages
  lsp       Run the language server (--stdio) for any LSP editor

Run "session-ops <command> --help" for the options of a command.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'status':
      return (await import('./status')).runStatus(rest);
    case 'validate':
      return (await import('./validate')).runValidate(rest);
    case 'lsp':
      return (await import('./lsp')).runLsp(rest);
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${__SESSION_OPS_VERSION__}\n`);
      return 0;
    default:
      process.stderr.write((command ? `session-ops: unknown command "${command}"\n\n` : '') + USAGE + '\n');
      return 2;
  }
}

declare const __SESSION_OPS_VERSION__: string;

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`session-ops: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
