// `session-ops dispatch SESSION --prompt-file FILE --model P/M [--fallback] [--agent NAME]`
import { resolveAuthority } from '../core/actions/authority';
import { dispatchTask } from '../core/actions/dispatch';
import { backendArgs, BACKEND_OPTIONS, clientFor, ENVIRONMENT_HELP, parseArgv, UsageError, wantsHelp } from './args';
import { withMarkStore } from './mark-store';
import {
  clean,
  contextFor,
  defaultActionIo,
  EXIT,
  EXIT_HELP,
  modelArg,
  readTextFile,
  sessionArg,
  withUsage,
  type ActionIo,
} from './action-io';

const USAGE = `Usage: session-ops dispatch SESSION --base-url URL --directory DIR --prompt-file FILE --model P/M
       [--fallback] [--agent NAME] [--ticket T] [--orchestrator ID] [--i-hold-authority] [--label L] [--json]

Launches a task on an idle session after the pre-dispatch check: the intended provider has no
quota mark, is connected, and another connected provider without a quota mark exists as a
fallback; otherwise refused (exit 3) naming the provider to use instead. With --fallback, a task
whose intended provider is marked or not connected goes to that provider instead (on the
session's own model there, else the provider's default) once the same check passes for it. The sent text is the file followed by the
completion-report block with the quota self-report clause appended unchanged.

Options:
  --prompt-file FILE    the task text
  --model P/M           the intended provider/model (required)
  --fallback            dispatch on the named alternative when the intended provider is marked or
                        not connected
  --agent NAME          agent role (default build)
  --ticket T            ticket of the completion-report block (default: from the session, else left
                        for the worker to fill)
  --orchestrator ID     orchestrator session the report goes to (default SESSION_OPS_ORCHESTRATOR)
  --i-hold-authority    confirm that the orchestrator this prompt speaks for holds the orchestrating
                        authority: needed for a fact baseline or a dispatch when the worker's newest
                        assignment names another orchestrator (authority rule 1; refused, exit 3)
  --label L             label of the report line
  --json                print {"session","model":{...},"sent":bool,"instead":str|null}

Example:
  session-ops dispatch ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --prompt-file task.md --model openai/gpt-5 --ticket PROJ-12 --json

${EXIT_HELP}
${ENVIRONMENT_HELP}`;

export async function runDispatch(argv: string[], ioOverrides: Partial<ActionIo> = {}): Promise<number> {
  const io = { ...defaultActionIo(), ...ioOverrides };
  return withUsage(io, 'dispatch', USAGE, async () => {
    const a = parseArgv(argv, {
      flags: ['--json', '--fallback', '--i-hold-authority'],
      options: [...BACKEND_OPTIONS, '--prompt-file', '--model', '--agent', '--ticket', '--orchestrator', '--label'],
      positionals: 1,
    });
    if (wantsHelp(a)) {
      io.stdout(`${USAGE}\n`);
      return EXIT.done;
    }
    const session = sessionArg(a, 'dispatch');
    const b = backendArgs(a);
    const file = a.values.get('--prompt-file');
    if (file === undefined) throw new UsageError('--prompt-file FILE is required');
    const model = modelArg(a);
    if (!model) throw new UsageError('--model PROVIDER/MODEL is required: every launch names a model explicitly');
    const task = await readTextFile(io, '--prompt-file', file);
    return withMarkStore('dispatch', b.baseUrl, io, io.clock.now, {}, async (marks) => {
      const client = clientFor(b, io.env, { now: io.clock.now, marks });
      try {
        const ctx = contextFor(client, b.directory, io);
        const sessions = await client.listSessions(b.directory).catch(() => null);
        const title = sessions?.sessions.find((s) => s.id === session)?.title ?? null;
        const authority = resolveAuthority({
          ticket: a.values.get('--ticket'),
          orchestrator: a.values.get('--orchestrator'),
          label: a.values.get('--label'),
          env: io.env,
          sessionTitle: title,
          holdsAuthority: a.flags.has('--i-hold-authority'),
        });
        const r = await dispatchTask(ctx, {
          sessionId: session,
          task,
          model,
          agent: a.values.get('--agent') ?? 'build',
          authority,
          fallback: a.flags.has('--fallback'),
        });
        io.stderr(
          `session-ops dispatch: the prompt speaks for orchestrator ${authority.orchestrator ?? '(none: the worker fills it)'}\n`,
        );
        if (a.flags.has('--json'))
          io.stdout(`${JSON.stringify({ session, model: r.model, sent: r.sent, instead: r.instead })}\n`);
        else io.stdout(`${clean(r.message)}\n`);
        if (!r.sent) io.stderr(`session-ops dispatch: ${clean(r.message)}\n`);
        return r.outcome === 'sent' ? EXIT.done : r.outcome === 'refused' ? EXIT.refused : EXIT.failed;
      } finally {
        await client.close();
      }
    });
  });
}
