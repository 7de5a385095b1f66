// `session-ops abort SESSION [--wait SECONDS]`: POST abort, then read the state until idle.
import { backendArgs, BACKEND_OPTIONS, clientFor, ENVIRONMENT_HELP, numberOption, type BackendArgs } from './args';
import { clean, defaultActionIo, sessionArg, type ActionIo } from './action-io';
import { notStarted, withOperator } from './action-operator';
import { defineCommand, runCommand } from './command';
import { EXIT, EXIT_HELP } from './exit-codes';

export const ABORT_USAGE = `Usage: session-ops abort SESSION --base-url URL --directory DIR [--wait SECONDS] [--json]

POSTs abort, then reads the session list until SESSION reads idle. An explicit order: it does
not wait for a two-sample verdict. Prompts queued before the abort may never fire: re-send them.

Options:
  --wait SECONDS   how long to read for idle after the abort (default 60)
  --json           print {"session":str,"idle":bool,"sent":true|false|"unknown"} (sent: whether the
                   abort reached the backend; "unknown" when its answer never came)

Example:
  session-ops abort ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --json

${EXIT_HELP}
${ENVIRONMENT_HELP}`;

interface AbortOptions {
  session: string;
  backend: BackendArgs;
  waitMs: number;
  json: boolean;
}

export const abortCommand = defineCommand<AbortOptions, ActionIo>({
  name: 'abort',
  usage: ABORT_USAGE,
  args: { flags: ['--json'], options: [...BACKEND_OPTIONS, '--wait'], positionals: 1 },
  io: defaultActionIo,
  options: (a) => ({
    session: sessionArg(a, 'abort'),
    backend: backendArgs(a),
    waitMs: Math.round(numberOption(a, '--wait', 60, 0) * 1000),
    json: a.flags.has('--json'),
  }),
  async run({ session, backend, waitMs, json }, io) {
    const client = clientFor(backend, io.env, { clock: io.clock });
    try {
      const acted = await withOperator(client, backend, { id: session }, io, ({ operator, target }) =>
        operator.abort({ target, waitMs }),
      );
      const r = acted.result;
      if (!r) return notStarted('abort', acted.outcome, io);
      if (json) io.stdout(`${JSON.stringify({ session, idle: r.idle, sent: r.sent })}\n`);
      else io.stdout(`${clean(r.message)}\n`);
      if (!r.idle && json) io.stderr(`session-ops abort: ${clean(r.message)}\n`);
      if (r.outcome === 'refused') {
        if (!json) io.stderr(`session-ops abort: ${clean(r.message)}\n`);
        return EXIT.refused;
      }
      return r.idle ? EXIT.done : EXIT.failed;
    } finally {
      await client.close();
    }
  },
});

export const runAbort = (argv: string[], io: Partial<ActionIo> = {}) => runCommand(abortCommand, argv, io);
