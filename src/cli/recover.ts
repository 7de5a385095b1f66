// `session-ops recover SESSION [--spacing S] [--allow-short-spacing] [--model P/M] [--worktree DIR]`
import { promptBuilder } from '../core/actions/prompt-builder';
import type { RecoverRequest, RecoverResult } from '../core/actions/recover';
import { MIN_SPACING_MS } from '../core/health/verdict';
import type { ProviderScope } from '../core/health/provider-choice';
import type { ModelRef } from '../core/model';
import {
  backendArgs,
  BACKEND_OPTIONS,
  clientFor,
  ENVIRONMENT_HELP,
  numberOption,
  UsageError,
  type BackendArgs,
} from './args';
import { withMarkStore } from './mark-store';
import { flagDefault, operatorSettingsFromFlags, settingFlag } from './setting-flags';
import { monitorSettings, type OperatorSettings } from '../core/settings/operator-settings';
import {
  clean,
  defaultActionIo,
  promptFlags,
  promptInputs,
  isoOrUnknown,
  modelArg,
  providersArg,
  PROVIDERS_HELP,
  sessionArg,
  type ActionIo,
  type PromptFlags,
} from './action-io';
import { notStarted, withOperator } from './action-operator';
import { defineCommand, runCommand } from './command';
import { EXIT } from './exit-codes';
import { PROMPT_HELP, PROMPT_OPTIONS } from './wake';

const USAGE = `Usage: session-ops recover SESSION --base-url URL --directory DIR
       [--spacing S] [--allow-short-spacing] [--model P/M] [--worktree DIR] [--max-prompt-kib KIB] [--json]

The recovery procedure after a quota wall, steps 1-5: two samples SPACING seconds apart classify
the session (abort first only when it reads generating and frozen), the surviving work is
inventoried, a connected provider without a quota mark is chosen and the quota-wall wake prompt is
sent with an explicit model on it, then the newest message is read until an assistant message
answers. When no provider is free: wait for a reset within reach, else escalate (nothing sent).

Options:
  --spacing SECONDS         seconds between the samples (default ${flagDefault('--spacing')}; 30 to 60)
  --allow-short-spacing     accept a spacing under 30 s (for tests only)
  --model P/M               explicit provider/model (still checked: connected, unmarked, not the wall's)
  --agent NAME              agent role (default build)
  --wait SECONDS            how long to read for the answer (default 120), and for idle after an abort
  --reset-within-reach MIN  a reset this many minutes away is waited for (default ${flagDefault('--reset-within-reach')})
  --max-prompt-kib KIB      the largest prompt sent, in KiB of UTF-8 (default ${flagDefault('--max-prompt-kib')}, at most 1024;
                            the setting prompt.maxKiB): a larger one is refused before anything is sent
${PROVIDERS_HELP}
  --json                    print {"session","decision","provider","model","waitUntil","marks":[...],"sent"}

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

interface RecoverOptions {
  session: string;
  backend: BackendArgs;
  spacingMs: number;
  allowShort: boolean;
  resetWithinReachMs: number;
  waitMs: number;
  model: ModelRef | null;
  agent: string;
  providers: ProviderScope | null;
  promptFlags: PromptFlags;
  json: boolean;
  /** The operator settings the flags set (--spacing, --reset-within-reach, --max-prompt-kib). */
  settings: OperatorSettings;
}

export const recoverCommand = defineCommand<RecoverOptions, ActionIo>({
  name: 'recover',
  usage: USAGE,
  args: {
    flags: ['--json', '--allow-short-spacing', '--i-hold-authority'],
    options: [
      ...BACKEND_OPTIONS,
      '--spacing',
      '--model',
      '--agent',
      '--wait',
      '--reset-within-reach',
      '--providers',
      '--max-prompt-kib',
      ...PROMPT_OPTIONS.filter((o) => o !== '--facts'),
    ],
    positionals: 1,
  },
  io: defaultActionIo,
  options(a) {
    const session = sessionArg(a, 'recover');
    const backend = backendArgs(a);
    const operatorSettings = operatorSettingsFromFlags(a, ['--spacing', '--reset-within-reach', '--max-prompt-kib']);
    const settings = monitorSettings(operatorSettings);
    const allowShort = a.flags.has('--allow-short-spacing');
    if (settings.spacingMs < MIN_SPACING_MS && !allowShort)
      throw new UsageError(
        `--spacing ${settingFlag(a, '--spacing')} is under 30 s (the spec's minimum); --allow-short-spacing exists for tests`,
      );
    return {
      session,
      backend,
      spacingMs: settings.spacingMs,
      allowShort,
      resetWithinReachMs: settings.resetWithinReachMs,
      waitMs: Math.round(numberOption(a, '--wait', 120, 0) * 1000),
      model: modelArg(a),
      agent: a.values.get('--agent') ?? 'build',
      providers: providersArg(a),
      promptFlags: promptFlags(a),
      json: a.flags.has('--json'),
      settings: operatorSettings,
    };
  },
  run: (o, io) =>
    withMarkStore('recover', o.backend.baseUrl, io, io.clock.now, {}, async (marks) => {
      const client = clientFor(o.backend, io.env, { clock: io.clock, marks });
      try {
        const builder = promptBuilder({
          template: 'quota-wake',
          ...promptInputs(o.promptFlags, o.backend, client, io),
        });
        const request: Omit<RecoverRequest, 'sessionId'> = {
          prompt: (facts) => builder.build(facts),
          model: o.model,
          agent: o.agent,
          spacingMs: o.spacingMs,
          minSpacingMs: o.allowShort ? 0 : MIN_SPACING_MS,
          resetWithinReachMs: o.resetWithinReachMs,
          providers: o.providers,
          abort: { waitMs: o.waitMs },
          confirm: { withinMs: o.waitMs },
        };
        const acted = await withOperator(
          client,
          o.backend,
          { id: o.session },
          io,
          ({ operator, target }) => operator.recover({ target, request }),
          o.settings,
        );
        const r = acted.result;
        if (!r) return notStarted('recover', acted.outcome, io);
        if (builder.authority) {
          io.stderr(
            `session-ops recover: the prompt speaks for orchestrator ${builder.authority.orchestrator ?? '(none: the worker fills it)'}\n`,
          );
          for (const w of builder.authority.warnings) io.stderr(`session-ops recover: warning: ${clean(w)}\n`);
        }
        if (o.json) {
          const { decision, provider, model, waitUntil, marks, confirmed, aborted, sent, message } = r;
          const doc = {
            session: o.session,
            decision,
            provider,
            model,
            waitUntil,
            marks,
            confirmed,
            aborted,
            sent,
            message,
          };
          io.stdout(`${JSON.stringify(doc)}\n`);
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
    }),
});

export const runRecover = (argv: string[], io: Partial<ActionIo> = {}) => runCommand(recoverCommand, argv, io);
