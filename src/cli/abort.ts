// `session-ops abort SESSION [--wait SECONDS]`: POST abort, then read the state until idle.
import { abortSession } from '../core/actions/abort';
import { backendArgs, BACKEND_OPTIONS, clientFor, ENVIRONMENT_HELP, numberOption, parseArgv, wantsHelp } from './args';
import { clean, contextFor, defaultActionIo, EXIT, EXIT_HELP, sessionArg, withUsage, type ActionIo } from './action-io';

export const ABORT_USAGE = `Usage: session-ops abort SESSION --base-url URL --directory DIR [--wait SECONDS] [--json]

POSTs abort, then reads the session list until SESSION reads idle. An explicit order: it does
not wait for a two-sample verdict. Prompts queued before the abort may never fire: re-send them.

Options:
  --wait SECONDS   how long to read for idle after the abort (default 60)
  --json           print {"session":str,"idle":bool}

Example:
  session-ops abort ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --json

${EXIT_HELP}
${ENVIRONMENT_HELP}`;

export async function runAbort(argv: string[], ioOverrides: Partial<ActionIo> = {}): Promise<number> {
  const io = { ...defaultActionIo(), ...ioOverrides };
  return withUsage(io, 'abort', ABORT_USAGE, async () => {
    const a = parseArgv(argv, { flags: ['--json'], options: [...BACKEND_OPTIONS, '--wait'], positionals: 1 });
    if (wantsHelp(a)) {
      io.stdout(`${ABORT_USAGE}\n`);
      return EXIT.done;
    }
    const session = sessionArg(a, 'abort');
    const b = backendArgs(a);
    const waitMs = Math.round(numberOption(a, '--wait', 60, 0) * 1000);
    const client = clientFor(b, io.env, { now: io.clock.now });
    try {
      const r = await abortSession(contextFor(client, b.directory, io), session, { waitMs });
      if (a.flags.has('--json')) io.stdout(`${JSON.stringify({ session, idle: r.idle })}\n`);
      else io.stdout(`${clean(r.message)}\n`);
      if (!r.idle && a.flags.has('--json')) io.stderr(`session-ops abort: ${clean(r.message)}\n`);
      if (r.outcome === 'refused') {
        if (!a.flags.has('--json')) io.stderr(`session-ops abort: ${clean(r.message)}\n`);
        return EXIT.refused;
      }
      return r.idle ? EXIT.done : EXIT.failed;
    } finally {
      await client.close();
    }
  });
}
