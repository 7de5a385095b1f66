// `session-ops dispatch SESSION --prompt-file FILE --model P/M [--fallback] [--agent NAME]`, and by
// route: `--routing FILE --label Kind/X [--label ...] --ticket T [--high-risk]` composes the task
// from the ticket's effective route (src/core/prompt/route-task.ts); `--new-session` creates the
// worker's session first (a dialect that can: capabilities.createSession).
import { resolveAuthority } from '../core/actions/authority';
import { preDispatchCheck } from '../core/health/pre-dispatch';
import { inline } from '../core/prompt/text';
import { composeRouteTask } from '../core/prompt/route-task';
import { resolveRoute, type EffectiveRoute } from '../language/routing';
import { printUnresolved, readRouting } from './route';
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
import { describeError } from '../core/error-message';
import { monitorSettings, type OperatorSettings } from '../core/settings/operator-settings';
import { flagDefault, operatorSettingsFromFlags } from './setting-flags';

const USAGE = `Usage: session-ops dispatch SESSION --base-url URL --directory DIR --prompt-file FILE --model P/M
       [--fallback] [--agent NAME] [--ticket T] [--orchestrator ID] [--i-hold-authority] [--label L]
       [--max-prompt-kib KIB] [--json]
       session-ops dispatch (SESSION | --new-session) --base-url URL --directory DIR --model P/M
       --routing FILE --label Kind/X [--label ...] --ticket T [--high-risk] [--prompt-file FILE] [...]

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
  --label L             label of the report line; with --routing, a label of the ticket (repeat it
                        for each): its Kind label picks the route, and the report line names the
                        Kind label that matched
  --routing FILE        dispatch by route: the task starts with the ticket's effective route in the
                        routing table (as session-ops route resolves it): the entry skill and mode
                        as the instruction the worker starts with, the stages skipped and kept, the
                        preflight checklist after preflight.max_items (each item with its evidence)
                        to verify before implementing, the notes, then the --prompt-file text
                        (optional here), then the completion-report block. The route's effort is
                        sent as the model's variant of that name when the provider listing shows
                        one for the model and the backend's prompt payload takes a variant (stock
                        opencode; the spec's payload defines agent, model and parts only, so there
                        it is not sent and stderr says so). Needs --ticket and --label. An invalid
                        table exits 1 (its diagnostics as validate prints them), ambiguous Kind
                        labels exit 3 ({"ambiguous": [...]} with --json): nothing is sent
  --high-risk           with --routing: the ticket is high risk (the route's review budget)
  --new-session         instead of SESSION: create the worker's session in DIR titled with --ticket,
                        then dispatch to it. Only on a backend that creates sessions (stock opencode
                        POST /session); on the spec's dialect, which does not show session creation,
                        refused (exit 3), nothing created. A failing pre-dispatch check (without
                        --fallback) refuses before the session is created
  --max-prompt-kib KIB  the largest prompt sent, in KiB of UTF-8 (default ${flagDefault('--max-prompt-kib')}, at most 1024;
                        the setting prompt.maxKiB): a larger one is refused before anything is sent
  --json                print {"session","model":{...},"sent":true|false|"unknown","instead":str|null,
                        "variant":str|null,"newSession":bool}

Example:
  session-ops dispatch ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --prompt-file task.md --model openai/gpt-5 --ticket PROJ-12 --json
  session-ops dispatch --new-session --base-url http://127.0.0.1:4096 --directory "$PWD" --model openai/gpt-5 \\
    --routing routing.yaml --label Kind/Bug --ticket PROJ-13 --prompt-file task.md

${EXIT_HELP}
${ENVIRONMENT_HELP}`;

/** Dispatch by route: the table and the ticket's labels. */
interface RoutingOptions {
  file: string;
  text: string;
  labels: string[];
  highRisk: boolean;
}

interface DispatchOptions {
  /** null: --new-session. */
  session: string | null;
  backend: BackendArgs;
  /** The task text (--prompt-file); null: none (only with --routing). */
  task: string | null;
  routing: RoutingOptions | null;
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
    flags: ['--json', '--fallback', '--i-hold-authority', '--high-risk', '--new-session'],
    options: [
      ...BACKEND_OPTIONS,
      '--prompt-file',
      '--model',
      '--agent',
      '--ticket',
      '--orchestrator',
      '--max-prompt-kib',
      '--routing',
    ],
    lists: ['--label'],
    positionals: 1,
  },
  io: defaultActionIo,
  async options(a, io) {
    const newSession = a.flags.has('--new-session');
    if (newSession && a.positionals.length > 0) throw new UsageError('give either SESSION or --new-session, not both');
    const session = newSession ? null : sessionArg(a, 'dispatch');
    const backend = backendArgs(a);
    const routingFile = a.values.get('--routing');
    const labels = a.lists?.get('--label') ?? [];
    if (labels.some((l) => l.trim() === '')) throw new UsageError('--label needs a non-empty value');
    const file = a.values.get('--prompt-file');
    let routing: RoutingOptions | null = null;
    if (routingFile !== undefined) {
      if (labels.length === 0) throw new UsageError('--routing needs --label (repeat it for each label of the ticket)');
      if (!a.values.get('--ticket')?.trim()) throw new UsageError('--routing needs --ticket T (the ticket dispatched)');
      routing = {
        file: routingFile,
        text: await readRouting(routingFile),
        labels,
        highRisk: a.flags.has('--high-risk'),
      };
    } else {
      if (file === undefined) throw new UsageError('--prompt-file FILE is required');
      if (labels.length > 1)
        throw new UsageError("--label is given once (the report line's), unless --routing is given");
      if (a.flags.has('--high-risk')) throw new UsageError('--high-risk is read only with --routing');
    }
    if (newSession && !a.values.get('--ticket')?.trim())
      throw new UsageError('--new-session needs --ticket T (the new session is titled with it)');
    const model = modelArg(a);
    if (!model) throw new UsageError('--model PROVIDER/MODEL is required: every launch names a model explicitly');
    const settings = operatorSettingsFromFlags(a, ['--max-prompt-kib']);
    const report = promptFlags(a);
    return {
      session,
      backend,
      task:
        file === undefined
          ? null
          : await readTextFile(io, '--prompt-file', file, monitorSettings(settings).maxPromptBytes),
      routing,
      model,
      agent: a.values.get('--agent') ?? 'build',
      fallback: a.flags.has('--fallback'),
      report: { ...report, label: routing ? undefined : labels[0] },
      json: a.flags.has('--json'),
      settings,
    };
  },
  run: async (o, io) => {
    // By route: the table resolved before anything is read or sent (invalid exit 1, ambiguous exit 3).
    let route: EffectiveRoute | null = null;
    if (o.routing) {
      const r = resolveRoute(o.routing.text, o.routing.labels, { highRisk: o.routing.highRisk });
      if (r.kind !== 'route') return printUnresolved('dispatch', o.routing.file, r, o.json, io);
      route = r.route;
    }
    return withMarkStore('dispatch', o.backend.baseUrl, io, io.clock.now, {}, async (marks) => {
      const client = clientFor(o.backend, io.env, { clock: io.clock, marks });
      try {
        const sessions = await client.listSessions(o.backend.directory).catch(() => null);
        let id = o.session;
        let title = id === null ? null : (sessions?.sessions.find((s) => s.id === id)?.title ?? null);
        if (id === null) {
          const created = await createWorkerSession(client, o, io);
          if (typeof created === 'number') return created;
          ({ id, title } = created);
        }
        const report = route && route.matched !== 'default' ? { ...o.report, label: route.matched } : o.report;
        const authority = resolveAuthority({
          ticket: report.ticket,
          orchestrator: report.orchestrator,
          label: report.label,
          env: io.env,
          sessionTitle: title,
          holdsAuthority: report.holdsAuthority,
        });
        const task = route
          ? composeRouteTask({ route, ticket: authority.ticket ?? report.ticket ?? '', task: o.task })
          : (o.task ?? '');
        const request = {
          task,
          model: o.model,
          agent: o.agent,
          authority,
          fallback: o.fallback,
          effort: route?.effort ?? null,
        };
        const acted = await withOperator(
          client,
          o.backend,
          { id, title },
          io,
          ({ operator, target }) => operator.dispatch({ target, request }),
          o.settings,
        );
        const r = acted.result;
        if (!r) return notStarted('dispatch', acted.outcome, io);
        io.stderr(
          `session-ops dispatch: the prompt speaks for orchestrator ${authority.orchestrator ?? '(none: the worker fills it)'}\n`,
        );
        if (r.variantNote) io.stderr(`session-ops dispatch: ${clean(r.variantNote)}\n`);
        if (o.json)
          io.stdout(
            `${JSON.stringify({
              session: id,
              model: r.model,
              sent: r.sent,
              instead: r.instead,
              variant: r.variant,
              newSession: o.session === null,
            })}\n`,
          );
        else io.stdout(`${clean(r.message)}\n`);
        if (r.sent !== true) io.stderr(`session-ops dispatch: ${clean(r.message)}\n`);
        return r.outcome === 'sent' ? EXIT.done : r.outcome === 'refused' ? EXIT.refused : EXIT.failed;
      } finally {
        await client.close();
      }
    });
  },
});

/**
 * --new-session: the worker's session created in the directory, titled with the ticket, once the
 * backend is known to create sessions and the intended provider passes the pre-dispatch check (or
 * --fallback lets the dispatch move): else an exit code, nothing created.
 */
async function createWorkerSession(
  client: ReturnType<typeof clientFor>,
  o: DispatchOptions,
  io: ActionIo,
): Promise<{ id: string; title: string } | number> {
  const dir = o.backend.directory;
  const fail = (code: number, why: string): number => {
    io.stderr(`session-ops dispatch: --new-session: ${clean(why)}\n`);
    return code;
  };
  let listing;
  try {
    // the session list (read before) and the provider listing tell the dialect
    listing = await client.listProviders(dir);
  } catch (err) {
    return fail(EXIT.failed, `the backend could not be read (${describeError(err)}): nothing created`);
  }
  if (client.capabilities?.createSession !== true)
    return fail(
      EXIT.refused,
      `this backend (${client.displayName ?? 'dialect unknown'}) does not create sessions: the spec does not show session creation; nothing created or sent`,
    );
  const check = preDispatchCheck(o.model.providerID, listing);
  if (!check.ok && !o.fallback)
    return fail(
      EXIT.refused,
      `pre-dispatch check failed for ${o.model.providerID}: ${check.problems.join('; ')}${check.dispatchOn && check.dispatchOn !== o.model.providerID ? `; dispatch on ${check.dispatchOn} instead (--fallback)` : ''}: nothing created or sent`,
    );
  const title = inline(o.report.ticket ?? '');
  try {
    const id = await client.createSession(dir, title);
    io.stderr(`session-ops dispatch: created session ${id} titled ${JSON.stringify(title)}\n`);
    return { id, title };
  } catch (err) {
    return fail(EXIT.failed, `the session could not be created (${describeError(err)}): nothing sent`);
  }
}

export const runDispatch = (argv: string[], io: Partial<ActionIo> = {}) => runCommand(dispatchCommand, argv, io);
