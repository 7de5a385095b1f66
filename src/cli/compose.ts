// `session-ops compose wake|quota-wake|fact-baseline|dispatch SESSION [...]`: print the prompt the
// editor would compose, to stdout or --out FILE, for review before `wake --prompt-file`.
import { COMPOSE_KINDS, type ComposeKind } from '../core/actions/compose';
import { callOpts } from '../core/actions/context';
import { chooseModel } from '../core/actions/model-choice';
import { promptBuilder } from '../core/actions/prompt-builder';
import { lastModelOf } from '../core/actions/send';
import { tailProbe } from '../core/health/quota-wall';
import { BackendError } from '../core/backend/errors';
import { backendArgs, BACKEND_OPTIONS, clientFor, ENVIRONMENT_HELP, parseArgv, UsageError, wantsHelp } from './args';
import {
  clean,
  contextFor,
  defaultActionIo,
  EXIT,
  promptInputs,
  modelArg,
  readTextFile,
  withUsage,
  type ActionIo,
} from './action-io';
import { baselineArg, PROMPT_HELP, PROMPT_OPTIONS } from './wake';

const USAGE = `Usage: session-ops compose wake|quota-wake|fact-baseline|dispatch SESSION --base-url URL --directory DIR
       [--out FILE] [--model P/M] [--prompt-file FILE] [prompt inputs]

Prints the prompt the editor would compose for SESSION (read-only: GET requests only), so a
script can review or edit it before "session-ops wake --prompt-file". wake: the wake prompt with
the uncommitted files and the anti-re-hang clause; quota-wake: the quota-wall prompt (names the
model it wakes on: --model, else the one wake would choose); fact-baseline: the four-part fact
baseline from --facts FILE; dispatch: --prompt-file plus the completion-report block.

Options:
  --out FILE            write the prompt to FILE instead of stdout
  --model P/M           the model a quota-wake prompt names
  --prompt-file FILE    the task of a dispatch prompt

${PROMPT_HELP}

Example:
  session-ops compose quota-wake ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --ticket PROJ-12 --out wake.md

Exit codes: 0 printed, 1 backend error, 2 usage, 3 the prompt cannot be composed (e.g. not at a
quota wall, no model can be named).
${ENVIRONMENT_HELP}`;

export async function runCompose(argv: string[], ioOverrides: Partial<ActionIo> = {}): Promise<number> {
  const io = { ...defaultActionIo(), ...ioOverrides };
  return withUsage(io, 'compose', USAGE, async () => {
    const a = parseArgv(argv, {
      flags: ['--i-hold-authority'],
      options: [...BACKEND_OPTIONS, '--out', '--model', '--prompt-file', ...PROMPT_OPTIONS],
      positionals: 2,
    });
    if (wantsHelp(a)) {
      io.stdout(`${USAGE}\n`);
      return EXIT.done;
    }
    const [kindRaw, session] = a.positionals;
    if (!kindRaw || !COMPOSE_KINDS.includes(kindRaw as ComposeKind))
      throw new UsageError(`the first argument must be one of ${COMPOSE_KINDS.join(', ')}`);
    const kind = kindRaw as ComposeKind;
    if (!session) throw new UsageError('compose needs the SESSION id');
    const b = backendArgs(a);
    const requested = modelArg(a);
    const baseline = await baselineArg(a, io);
    if (kind === 'fact-baseline' && !baseline) throw new UsageError('compose fact-baseline needs --facts FILE');
    const file = a.values.get('--prompt-file');
    if (kind === 'dispatch' && file === undefined)
      throw new UsageError('compose dispatch needs --prompt-file FILE (the task)');
    const task = file !== undefined ? await readTextFile(io, '--prompt-file', file) : a.values.get('--task');
    const client = clientFor(b, io.env, { now: io.clock.now });
    try {
      const ctx = contextFor(client, b.directory, io);
      const [list, newest, listing] = await Promise.all([
        client.listSessions(b.directory, callOpts(ctx)),
        client.newestMessage(b.directory, session, callOpts(ctx)),
        client.listProviders(b.directory, callOpts(ctx)),
      ]);
      const s = list.sessions.find((x) => x.id === session);
      if (!s) {
        io.stderr(`session-ops compose: session ${session} is not listed in this directory\n`);
        return EXIT.failed;
      }
      const wallProvider = tailProbe({ at: io.clock.now(), session: s, newest })?.provider ?? null;
      const choice = chooseModel({ requested, last: lastModelOf(newest), listing, wallProvider });
      if (kind === 'quota-wake' && !choice.model) {
        io.stderr(`session-ops compose: ${clean(choice.basis)}\n`);
        return EXIT.refused;
      }
      const builder = promptBuilder({
        kind,
        ...promptInputs(a, b, client, io),
        task,
        baseline,
      });
      const composed = await builder.build({
        model: choice.model ?? { providerID: '', modelID: '' },
        session: s,
        newest,
        wallProvider,
      });
      if (!composed.ok) {
        io.stderr(`session-ops compose: ${clean(composed.problem)}\n`);
        return EXIT.refused;
      }
      io.stderr(
        `session-ops compose: the prompt speaks for orchestrator ${builder.authority?.orchestrator ?? '(none: the worker fills it)'}; uncommitted files ${builder.inventory?.note ?? ''}\n`,
      );
      for (const w of builder.authority?.warnings ?? []) io.stderr(`session-ops compose: warning: ${clean(w)}\n`);
      const out = a.values.get('--out');
      if (out !== undefined) {
        try {
          await io.writeFile(out, `${composed.text}\n`);
        } catch (err) {
          throw new UsageError(`--out ${out}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
      } else io.stdout(`${composed.text}\n`);
      return EXIT.done;
    } catch (err) {
      if (err instanceof BackendError) {
        io.stderr(`session-ops compose: cannot read the backend: ${err.message}\n`);
        return EXIT.failed;
      }
      throw err;
    } finally {
      await client.close();
    }
  });
}
