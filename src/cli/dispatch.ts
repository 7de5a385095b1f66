// `session-ops dispatch SESSION --prompt-file FILE --model P/M [--fallback] [--agent NAME]`
import { resolveAuthority } from '../core/actions/authority';
import type { ModelRef } from '../core/model';
import { backendArgs, BACKEND_OPTIONS, clientFor, ENVIRONMENT_HELP, UsageError, type BackendArgs } from './args';
import { withMarkStore } from './mark-store';
import {
  clean,
  defaultActionIo,
  modelArg,
  promptFlags,
  readTextFile,
  sessionArg,
  type ActionIo,
  type PromptFlags,
} from './action-io';
import { notStarted, withOperator } from './action-operator';
import { defineCommand, runCommand } from './command';
import { EXIT, EXIT_HELP } from './exit-codes';
import { monitorSettings, type OperatorSettings } from '../core/settings/operator-settings';
import { flagDefault, operatorSettingsFromFlags } from './setting-flags';

const USAGE = `Usage: session-ops dispatch SESSION --base-url URL --directory DIR --prompt-file FILE --model P/M
       [--fallback] [--agent NAME] [--ticket T] [--orchestrator ID] [--i-hold-authority] [--label L]
       [--max-prompt-kib KIB] [--json]

Launches a task on an idle session after the pre-dispatch check: the intended provider has no
quota mark, is connected, and another connected provider without a quota mark exists as a
fallback; otherwise refused (exit 3) naming the provider to use instead. With --fallback, a task
whose intended provider is marked or not connected goes to that provider instead (on the
session's own model there, else the provider's default) once the same check passes for it. The sent text is the file followed by the
completion-report block with the quota self-report clause appended unchanged.

Options:
  --prompt-file FILE    the task text (UTF-8; a leading BOM is dropped; a file that is not UTF-8 or is
                        above the size cap is refused, exit 2, nothing sent)
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
  --max-prompt-kib KIB  the largest prompt sent, in KiB of UTF-8 (default ${flagDefault('--max-prompt-kib')}, at most 1024;
                        the setting prompt.maxKiB): a larger one is refused before anything is sent
  --json                print {"session","model":{...},"sent":true|false|"unknown","instead":str|null}

Example:
  session-ops dispatch ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --prompt-file task.md --model openai/gpt-5 --ticket PROJ-12 --json

${EXIT_HELP}
${ENVIRONMENT_HELP}`;

interface DispatchOptions {
  session: string;
  backend: BackendArgs;
  task: string;
  model: ModelRef;
  agent: string;
  fallback: boolean;
  report: Pick<PromptFlags, 'ticket' | 'orchestrator' | 'label' | 'holdsAuthority'>;
  json: boolean;
  /** The operator settings the flags set (--max-prompt-kib). */
  settings: OperatorSettings;
}

export const dispatchCommand = defineCommand<DispatchOptions, ActionIo>({
  name: 'dispatch',
  usage: USAGE,
  args: {
    flags: ['--json', '--fallback', '--i-hold-authority'],
    options: [
      ...BACKEND_OPTIONS,
      '--prompt-file',
      '--model',
      '--agent',
      '--ticket',
      '--orchestrator',
      '--label',
      '--max-prompt-kib',
    ],
    positionals: 1,
  },
  io: defaultActionIo,
  async options(a, io) {
    const session = sessionArg(a, 'dispatch');
    const backend = backendArgs(a);
    const file = a.values.get('--prompt-file');
    if (file === undefined) throw new UsageError('--prompt-file FILE is required');
    const model = modelArg(a);
    if (!model) throw new UsageError('--model PROVIDER/MODEL is required: every launch names a model explicitly');
    const settings = operatorSettingsFromFlags(a, ['--max-prompt-kib']);
    return {
      session,
      backend,
      task: await readTextFile(io, '--prompt-file', file, monitorSettings(settings).maxPromptBytes),
      model,
      agent: a.values.get('--agent') ?? 'build',
      fallback: a.flags.has('--fallback'),
      report: promptFlags(a),
      json: a.flags.has('--json'),
      settings,
    };
  },
  run: (o, io) =>
    withMarkStore('dispatch', o.backend.baseUrl, io, io.clock.now, {}, async (marks) => {
      const client = clientFor(o.backend, io.env, { now: io.clock.now, marks });
      try {
        const sessions = await client.listSessions(o.backend.directory).catch(() => null);
        const title = sessions?.sessions.find((s) => s.id === o.session)?.title ?? null;
        const authority = resolveAuthority({
          ticket: o.report.ticket,
          orchestrator: o.report.orchestrator,
          label: o.report.label,
          env: io.env,
          sessionTitle: title,
          holdsAuthority: o.report.holdsAuthority,
        });
        const request = { task: o.task, model: o.model, agent: o.agent, authority, fallback: o.fallback };
        const acted = await withOperator(
          client,
          o.backend,
          { id: o.session, title },
          io,
          ({ operator, target }) => operator.dispatchTarget(target, request),
          o.settings,
        );
        const r = acted.result;
        if (!r) return notStarted('dispatch', acted.outcome, io);
        io.stderr(
          `session-ops dispatch: the prompt speaks for orchestrator ${authority.orchestrator ?? '(none: the worker fills it)'}\n`,
        );
        if (o.json)
          io.stdout(`${JSON.stringify({ session: o.session, model: r.model, sent: r.sent, instead: r.instead })}\n`);
        else io.stdout(`${clean(r.message)}\n`);
        if (r.sent !== true) io.stderr(`session-ops dispatch: ${clean(r.message)}\n`);
        return r.outcome === 'sent' ? EXIT.done : r.outcome === 'refused' ? EXIT.refused : EXIT.failed;
      } finally {
        await client.close();
      }
    }),
});

export const runDispatch = (argv: string[], io: Partial<ActionIo> = {}) => runCommand(dispatchCommand, argv, io);
