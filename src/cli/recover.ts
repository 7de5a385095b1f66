// `session-ops recover SESSION [--spacing S] [--allow-short-spacing] [--model P/M] [--worktree DIR]`
import { promptBuilder } from '../core/actions/prompt-builder';
import { recoverSession, type RecoverResult } from '../core/actions/recover';
import { MIN_SPACING_MS } from '../core/health/verdict';
import {
  backendArgs,
  BACKEND_OPTIONS,
  clientFor,
  ENVIRONMENT_HELP,
  numberOption,
  parseArgv,
  UsageError,
  wantsHelp,
} from './args';
import { withMarkStore } from './mark-store';
import { flagDefault, settingFlag, settingsFromFlags } from './setting-flags';
import {
  clean,
  contextFor,
  defaultActionIo,
  EXIT,
  promptInputs,
  isoOrUnknown,
  modelArg,
  providersArg,
  PROVIDERS_HELP,
  sessionArg,
  withUsage,
  type ActionIo,
} from './action-io';
import { PROMPT_HELP, PROMPT_OPTIONS } from './wake';

const USAGE = `Usage: session-ops recover SESSION --base-url URL --directory DIR
       [--spacing S] [--allow-short-spacing] [--model P/M] [--worktree DIR] [--json]

The recovery procedure after a quota wall, steps 1-5: two samples SPACING seconds apart classify
the session (abort first only when it reads generating and frozen), the surviving work is
inventoried, a connected provider without a quota mark is chosen and the quota-wall wake prompt is
sent with an explicit model on it, then the newest message is read until an assistant message
answers. When no provider is free: wait for a reset within reach, else escalate (nothing sent).

Options:
  --spacing SECONDS         seconds between the samples (default ${flagDefault('--spacing')}; at least 30)
  --allow-short-spacing     accept a spacing under 30 s (for tests only)
  --model P/M               explicit provider/model (still checked: connected, unmarked, not the wall's)
  --agent NAME              agent role (default build)
  --wait SECONDS            how long to read for the answer (default 120), and for idle after an abort
  --reset-within-reach MIN  a reset this many minutes away is waited for (default ${flagDefault('--reset-within-reach')})
${PROVIDERS_HELP}
  --json                    print {"session","decision","provider","model","waitUntil","marks":[...]}

${PROMPT_HELP}

Example:
  session-ops recover ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --ticket PROJ-12 --json

Exit codes: 0 recovered (woken and confirmed), 1 backend error or not confirmed in time, 2 usage,
3 refused (not at a quota wall: use wake), 4 wait-for-reset (prints the reset time),
5 escalated (prints each marked provider's id, markedAt, resetAt).
${ENVIRONMENT_HELP}`;

export function recoverExit(r: RecoverResult): number {
  switch (r.decision) {
    case 'recovered':
      return r.confirmed ? EXIT.done : EXIT.failed;
    case 'wait-for-reset':
      return EXIT.waitForReset;
    case 'escalated':
      return EXIT.escalated;
    case 'refused':
      return EXIT.refused;
    default:
      return EXIT.failed;
  }
}

export async function runRecover(argv: string[], ioOverrides: Partial<ActionIo> = {}): Promise<number> {
  const io = { ...defaultActionIo(), ...ioOverrides };
  return withUsage(io, 'recover', USAGE, async () => {
    const a = parseArgv(argv, {
      flags: ['--json', '--allow-short-spacing', '--i-hold-authority'],
      options: [
        ...BACKEND_OPTIONS,
        '--spacing',
        '--model',
        '--agent',
        '--wait',
        '--reset-within-reach',
        '--providers',
        ...PROMPT_OPTIONS.filter((o) => o !== '--facts'),
      ],
      positionals: 1,
    });
    if (wantsHelp(a)) {
      io.stdout(`${USAGE}\n`);
      return EXIT.done;
    }
    const session = sessionArg(a, 'recover');
    const b = backendArgs(a);
    const settings = settingsFromFlags(a, ['--spacing', '--reset-within-reach']);
    const allowShort = a.flags.has('--allow-short-spacing');
    if (settings.spacingMs < MIN_SPACING_MS && !allowShort)
      throw new UsageError(
        `--spacing ${settingFlag(a, '--spacing')} is under 30 s (the spec's minimum); --allow-short-spacing exists for tests`,
      );
    const waitMs = Math.round(numberOption(a, '--wait', 120, 0) * 1000);
    const model = modelArg(a);
    return withMarkStore('recover', b.baseUrl, io, io.clock.now, {}, async (marks) => {
      const client = clientFor(b, io.env, { now: io.clock.now, marks });
      try {
        const builder = promptBuilder({
          kind: 'quota-wake',
          ...promptInputs(a, b, client, io),
        });
        const r = await recoverSession(contextFor(client, b.directory, io), {
          sessionId: session,
          prompt: (facts) => builder.build(facts),
          model,
          agent: a.values.get('--agent') ?? 'build',
          spacingMs: settings.spacingMs,
          minSpacingMs: allowShort ? 0 : MIN_SPACING_MS,
          resetWithinReachMs: settings.resetWithinReachMs,
          providers: providersArg(a),
          abort: { waitMs },
          confirm: { withinMs: waitMs },
        });
        if (builder.authority) {
          io.stderr(
            `session-ops recover: the prompt speaks for orchestrator ${builder.authority.orchestrator ?? '(none: the worker fills it)'}\n`,
          );
          for (const w of builder.authority.warnings) io.stderr(`session-ops recover: warning: ${clean(w)}\n`);
        }
        if (a.flags.has('--json')) {
          io.stdout(
            `${JSON.stringify({ session, decision: r.decision, provider: r.provider, model: r.model, waitUntil: r.waitUntil, marks: r.marks, confirmed: r.confirmed, aborted: r.aborted, message: r.message })}\n`,
          );
        } else {
          const out = [clean(r.message)];
          if (r.decision === 'wait-for-reset') out.push(`retry after ${isoOrUnknown(r.waitUntil)}`);
          if (r.decision === 'escalated' || r.decision === 'wait-for-reset')
            for (const m of r.marks)
              out.push(
                `  ${clean(m.provider)}  markedAt ${isoOrUnknown(m.markedAt)}  resetAt ${isoOrUnknown(m.resetAt)}`,
              );
          io.stdout(`${out.join('\n')}\n`);
        }
        if (r.decision === null || r.decision === 'refused') io.stderr(`session-ops recover: ${clean(r.message)}\n`);
        return recoverExit(r);
      } finally {
        await client.close();
      }
    });
  });
}
