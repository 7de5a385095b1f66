// `session-ops`: the command-line face of the same pure modules the extension and the language
// server use. Each command is declared in its own file the one way src/cli/command.ts describes,
// and listed once in COMMANDS below (loaded only when run); its exit codes are named in
// src/cli/exit-codes.ts.
import { systemClock, unrefTimer } from '../core/clock';
import { describeError } from '../core/error-message';
import { EXIT } from './exit-codes';

type Runner = (argv: string[]) => Promise<number>;

/** Every command: its name, its line in the help, and its runner (imported when the command runs). */
const COMMANDS: ReadonlyArray<{ name: string; summary: string; load: () => Promise<Runner> }> = [
  {
    name: 'status',
    summary: 'Two-sample health verdicts and the action per session (read-only)',
    load: async () => (await import('./status')).runStatus,
  },
  {
    name: 'abort',
    summary: 'Abort a session and read until it is idle',
    load: async () => (await import('./abort')).runAbort,
  },
  {
    name: 'wake',
    summary: 'Send a wake prompt (from a file or composed) with an explicit model, and confirm it',
    load: async () => (await import('./wake')).runWake,
  },
  {
    name: 'recover',
    summary: 'The recovery procedure after a quota wall (wake on a free provider, wait, or escalate)',
    load: async () => (await import('./recover')).runRecover,
  },
  {
    name: 'dispatch',
    summary: 'Launch a task after the pre-dispatch check, with the completion-report block',
    load: async () => (await import('./dispatch')).runDispatch,
  },
  {
    name: 'compose',
    summary: 'Print the prompt the editor would compose (wake, quota-wake, fact-baseline, dispatch)',
    load: async () => (await import('./compose')).runCompose,
  },
  {
    name: 'report',
    summary: 'Parse or format a one-line completion report',
    load: async () => (await import('./report')).runReport,
  },
  {
    name: 'validate',
    summary: 'Validate routing tables and source-analysis pages',
    load: async () => (await import('./validate')).runValidate,
  },
  {
    name: 'route',
    summary: 'The effective route of a ticket in a routing table (entry, gates, preflight, effort)',
    load: async () => (await import('./route')).runRoute,
  },
  {
    name: 'lsp',
    summary: 'Run the language server (--stdio) for any LSP editor',
    load: async () => (await import('./lsp')).runLsp,
  },
  {
    name: 'watch',
    summary: 'Run unattended: sample continuously, serve Prometheus metrics, act when configured',
    load: async () => (await import('./watch')).runWatch,
  },
  {
    name: 'token',
    summary: "Create, list or remove the tokens of the watch daemon's API (printed once, stored hashed)",
    load: async () => (await import('./token')).runToken,
  },
];

const USAGE = `Usage: session-ops <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(8)}  ${c.summary}`).join('\n')}

Exit codes of the actions: 0 done, 1 backend error or not confirmed in time, 2 usage,
3 refused by a safety rule, 4 wait-for-reset, 5 escalated (3-5: nothing sent);
status --budget-usd N exits 6 when a session's cost reached N.
Run "session-ops <command> --help" for the options of a command, with an example.`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = COMMANDS.find((c) => c.name === name);
  if (command) return (await command.load())(rest);
  switch (name) {
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(USAGE + '\n');
      return EXIT.done;
    case '--version':
    case '-v':
      process.stdout.write(`${__SESSION_OPS_VERSION__}\n`);
      return EXIT.done;
    default:
      process.stderr.write((name ? `session-ops: unknown command "${name}"\n\n` : '') + USAGE + '\n');
      return EXIT.usage;
  }
}

declare const __SESSION_OPS_VERSION__: string;

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
      // The daemon has stopped: a connection still closing must not hold the process past its deadline.
      if (process.argv[2] === 'watch') unrefTimer(systemClock.setTimeout(() => process.exit(code), 500));
    },
    (err: unknown) => {
      process.stderr.write(`session-ops: ${describeError(err)}\n`);
      process.exitCode = EXIT.usage;
    },
  );
}
