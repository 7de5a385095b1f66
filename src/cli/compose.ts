// `session-ops compose wake|quota-wake|fact-baseline|dispatch SESSION [...]`: print the prompt the
// editor would compose, to stdout or --out FILE, for review before `wake --prompt-file`.
import { PROMPT_TEMPLATES, type PromptTemplate } from '../core/actions/compose';
import { readAssigner } from '../core/actions/assignment';
import { callOpts } from '../core/actions/executor-context';
import { assignmentBook } from '../core/operations/assignments';
import { operatorStateFor } from '../core/operations/state-store-operator';
import { chooseModel } from '../core/actions/model-choice';
import { promptBuilder } from '../core/actions/prompt-builder';
import { lastModelOf } from '../core/actions/send';
import { tailProbe } from '../core/health/quota-wall';
import type { FactBaselineFacts } from '../core/actions/compose';
import type { ModelRef } from '../core/model';
import {
  backendArgs,
  BACKEND_OPTIONS,
  clientFor,
  ENVIRONMENT_HELP,
  readingBackend,
  UsageError,
  type BackendArgs,
} from './args';
import {
  clean,
  contextFor,
  defaultActionIo,
  promptFlags,
  promptInputs,
  modelArg,
  readTextFile,
  type ActionIo,
  type PromptFlags,
} from './action-io';
import { defineCommand, runCommand } from './command';
import { EXIT } from './exit-codes';
import { baselineArg, PROMPT_HELP, PROMPT_OPTIONS } from './wake';
import { describeError } from '../core/error-message';
import { monitorSettings } from '../core/settings/operator-settings';
import { flagDefault, operatorSettingsFromFlags } from './setting-flags';

const USAGE = `Usage: session-ops compose wake|quota-wake|fact-baseline|dispatch SESSION --base-url URL --directory DIR
       [--out FILE] [--model P/M] [--prompt-file FILE] [--max-prompt-kib KIB] [prompt inputs]

Prints the prompt the editor would compose for SESSION (read-only: GET requests only), so a
script can review or edit it before "session-ops wake --prompt-file". wake: the wake prompt with
the uncommitted files and the anti-re-hang clause (the quota-wall prompt when the session is at a
quota wall: such a session is woken only with it); quota-wake: the quota-wall prompt (names the
model it wakes on: --model, else the one wake would choose); fact-baseline: the four-part fact
baseline from --facts FILE; dispatch: --prompt-file plus the completion-report block.

Options:
  --out FILE            write the prompt to FILE instead of stdout
  --model P/M           the model a quota-wake prompt names
  --prompt-file FILE    the task of a dispatch prompt (UTF-8; a leading BOM is dropped; a file that
                        is not UTF-8 or is above the size cap is refused, exit 2)
  --max-prompt-kib KIB  the largest prompt file or --facts file read, in KiB of UTF-8 (default ${flagDefault('--max-prompt-kib')},
                        at most 1024; the setting prompt.maxKiB, which wake and dispatch apply too)

${PROMPT_HELP}

Example:
  session-ops compose quota-wake ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --ticket PROJ-12 --out wake.md

Exit codes: 0 printed, 1 backend error, 2 usage, 3 the prompt cannot be composed (e.g. not at a
quota wall, no model can be named).
${ENVIRONMENT_HELP}`;

interface ComposeOptions {
  /** Which prompt: wake, quota-wake, fact-baseline or dispatch. */
  template: PromptTemplate;
  session: string;
  backend: BackendArgs;
  requested: ModelRef | null;
  baseline: FactBaselineFacts | null;
  task: string | undefined;
  promptFlags: PromptFlags;
  out: string | undefined;
}

export const composeCommand = defineCommand<ComposeOptions, ActionIo>({
  name: 'compose',
  usage: USAGE,
  args: {
    flags: ['--i-hold-authority'],
    options: [...BACKEND_OPTIONS, '--out', '--model', '--prompt-file', '--max-prompt-kib', ...PROMPT_OPTIONS],
    positionals: 2,
  },
  io: defaultActionIo,
  async options(a, io) {
    const [templateRaw, session] = a.positionals;
    if (!templateRaw || !PROMPT_TEMPLATES.includes(templateRaw as PromptTemplate))
      throw new UsageError(`the first argument must be one of ${PROMPT_TEMPLATES.join(', ')}`);
    const template = templateRaw as PromptTemplate;
    if (!session) throw new UsageError('compose needs the SESSION id');
    const backend = backendArgs(a);
    const requested = modelArg(a);
    const maxBytes = monitorSettings(operatorSettingsFromFlags(a, ['--max-prompt-kib'])).maxPromptBytes;
    const baseline = await baselineArg(a, io, maxBytes);
    if (template === 'fact-baseline' && !baseline) throw new UsageError('compose fact-baseline needs --facts FILE');
    const file = a.values.get('--prompt-file');
    if (template === 'dispatch' && file === undefined)
      throw new UsageError('compose dispatch needs --prompt-file FILE (the task)');
    const task = file !== undefined ? await readTextFile(io, '--prompt-file', file, maxBytes) : a.values.get('--task');
    return {
      template,
      session,
      backend,
      requested,
      baseline,
      task,
      promptFlags: promptFlags(a),
      out: a.values.get('--out'),
    };
  },
  async run(o, io) {
    const { template, session, backend } = o;
    const client = clientFor(backend, io.env, { clock: io.clock });
    return readingBackend('compose', client, io, async () => {
      const ctx = contextFor(client, backend.directory, io);
      const [list, newest, listing] = await Promise.all([
        client.listSessions(backend.directory, callOpts(ctx)),
        client.newestMessage(backend.directory, session, callOpts(ctx)),
        client.listProviders(backend.directory, callOpts(ctx)),
      ]);
      const s = list.sessions.find((x) => x.id === session);
      if (!s) {
        io.stderr(`session-ops compose: session ${session} is not listed in this directory\n`);
        return EXIT.failed;
      }
      const wallProvider = tailProbe({ at: io.clock.now(), session: s, newest })?.provider ?? null;
      const choice = chooseModel({ requested: o.requested, last: lastModelOf(newest), listing, wallProvider });
      if (template === 'quota-wake' && !choice.model) {
        io.stderr(`session-ops compose: ${clean(choice.basis)}\n`);
        return EXIT.refused;
      }
      const builder = promptBuilder({
        template: template,
        ...promptInputs(o.promptFlags, backend, client, io),
        task: o.task,
        baseline: o.baseline,
      });
      // Who assigned the worker (the state directory's record, else its first user message): rule 1 checked here too.
      const assigned = await readAssigner(
        { ...ctx, assignments: assignmentBook(operatorStateFor(io.env, io.clock.now)) },
        session,
      );
      const composed = await builder.build({
        model: choice.model ?? { providerID: '', modelID: '' },
        session: s,
        newest,
        wallProvider,
        assigned,
      });
      if (!composed.ok) {
        io.stderr(`session-ops compose: ${clean(composed.problem)}\n`);
        return EXIT.refused;
      }
      const orchestrator = builder.authority?.orchestrator ?? '(none: the worker fills it)';
      io.stderr(
        `session-ops compose: the prompt speaks for orchestrator ${orchestrator}; uncommitted files ${builder.inventory?.note ?? ''}\n`,
      );
      for (const w of builder.authority?.warnings ?? []) io.stderr(`session-ops compose: warning: ${clean(w)}\n`);
      if (o.out !== undefined) {
        try {
          await io.writeFile(o.out, `${composed.text}\n`);
        } catch (err) {
          throw new UsageError(`--out ${o.out}: ${(err as NodeJS.ErrnoException).code ?? describeError(err)}`);
        }
      } else io.stdout(`${composed.text}\n`);
      return EXIT.done;
    });
  },
});

export const runCompose = (argv: string[], io: Partial<ActionIo> = {}) => runCommand(composeCommand, argv, io);
