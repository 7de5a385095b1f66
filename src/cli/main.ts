// `session-ops`: the command-line face of the same pure modules the extension and the language
// server use. Each subcommand lives in its own file and returns an exit code.
//   0  success / no error found / done
//   1  the backend could not be read or an action was not confirmed in time, or validation found an error
//   2  usage or I/O error
//   3  refused by a safety rule (nothing sent)     (actions)
//   4  wait-for-reset (nothing sent)                (recover)
//   5  escalated to a human (nothing sent)          (recover)

const USAGE = `Usage: session-ops <command> [options]

Commands:
  status    Two-sample health verdicts and the action per session (read-only)
  abort     Abort a session and read until it is idle
  wake      Send a wake prompt (from a file or composed) with an explicit model, and confirm it
  recover   The recovery procedure after a quota wall (wake on a free provider, wait, or escalate)
  dispatch  Launch a task after the pre-dispatch check, with the completion-report block
  compose   Print the prompt the editor would compose (wake, quota-wake, fact-baseline, dispatch)
  report    Parse or format a one-line completion report
  validate  Validate routing tables and source-analysis pages
  lsp       Run the language server (--stdio) for any LSP editor
  watch     Run unattended: sample continuously, serve Prometheus metrics, act when configured

Exit codes of the actions: 0 done, 1 backend error or not confirmed in time, 2 usage,
3 refused by a safety rule, 4 wait-for-reset, 5 escalated (3-5: nothing sent).
Run "session-ops <command> --help" for the options of a command, with an example.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'status':
      return (await import('./status')).runStatus(rest);
    case 'abort':
      return (await import('./abort')).runAbort(rest);
    case 'wake':
      return (await import('./wake')).runWake(rest);
    case 'recover':
      return (await import('./recover')).runRecover(rest);
    case 'dispatch':
      return (await import('./dispatch')).runDispatch(rest);
    case 'compose':
      return (await import('./compose')).runCompose(rest);
    case 'report':
      return (await import('./report')).runReport(rest);
    case 'validate':
      return (await import('./validate')).runValidate(rest);
    case 'lsp':
      return (await import('./lsp')).runLsp(rest);
    case 'watch':
      return (await import('./watch')).runWatch(rest);
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
      // The daemon has stopped: a connection still closing must not hold the process past its deadline.
      if (process.argv[2] === 'watch') setTimeout(() => process.exit(code), 500).unref();
    },
    (err: unknown) => {
      process.stderr.write(`session-ops: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 2;
    },
  );
}
