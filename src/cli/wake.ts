// `session-ops wake SESSION (--prompt-file FILE | --compose wake|quota-wake|fact-baseline) ...`
import { readBaselineFacts, type FactBaselineFacts } from '../core/actions/compose';
import { promptBuilder } from '../core/actions/prompt-builder';
import type { WakeRequest } from '../core/actions/wake';
import type { ModelRef } from '../core/model';
import type { ProviderScope } from '../core/health/provider-choice';
import {
  backendArgs,
  BACKEND_OPTIONS,
  clientFor,
  ENVIRONMENT_HELP,
  numberOption,
  UsageError,
  type BackendArgs,
  type ParsedArgs,
} from './args';
import { withMarkStore } from './mark-store';
import {
  clean,
  defaultActionIo,
  promptFlags,
  promptInputs,
  modelArg,
  providersArg,
  PROVIDERS_HELP,
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

export const PROMPT_OPTIONS = [
  '--ticket',
  '--orchestrator',
  '--label',
  '--task',
  '--resume',
  '--facts',
  '--pr',
  '--worktree',
];

export const PROMPT_HELP = `Prompt inputs (for --compose; all optional, never refused for):
  --worktree DIR        a local directory whose uncommitted files the prompt names, read with git
                        (default --directory: from the backend, GET /vcs/status, else git when
                        local); else the prompt says the inventory was not available
  --ticket T            ticket of the completion-report block (default: named by the session's
                        title or newest user message, else written for the worker to fill)
  --orchestrator ID     orchestrator session the report goes to (default SESSION_OPS_ORCHESTRATOR)
  --i-hold-authority    confirm that the orchestrator this prompt speaks for holds the orchestrating
                        authority: needed for a fact baseline or a dispatch when the worker's newest
                        assignment names another orchestrator (authority rule 1; refused, exit 3)
  --label L             label of the report line
  --task TEXT           the task (default: the session title)
  --resume TEXT         the one concrete step to resume with
  --pr P                pull request state (quota-wake)
  --facts FILE          fact-baseline facts, JSON: {"event", "facts":[{"statement","source","at"}],
                        "invalidAssumptions":[...], "assignment": "step" | {"kind":"standby","until"}}`;

const USAGE = `Usage: session-ops wake SESSION --base-url URL --directory DIR
       (--prompt-file FILE | --compose wake|quota-wake|fact-baseline)
       [--model PROVIDER/MODEL] [--agent NAME] [--abort-first] [--wait SECONDS] [--providers A,B] [--worktree DIR]
       [--max-prompt-kib KIB] [--json]

Sends a wake prompt with an explicit model and confirms that it started. The body is built from
the file (or composed), so quoting cannot corrupt the text. Refused (exit 3, nothing sent) when the
session does not read idle and --abort-first is not given, when the model's provider is not
connected, is quota-marked or is the provider of the session's quota wall, when the provider's
listing names its models and not this one (the message lists them), or when no explicit model can
be determined. Escalated (exit 5, nothing sent, no abort) when the session's turn died on a balance
failure (HTTP 402 insufficient_quota): a person tops up; another provider is not the cure. Without --model: the session's last model when its provider qualifies and lists
it, else a model seen answering recently on a qualifying provider, else that provider's default.
After the 204 it reads until a newer assistant message appears, or the session reads generating
and moved between two reads (one generating read and the stored user message are not proof).

Options:
  --prompt-file FILE    the prompt text (UTF-8; a leading BOM is dropped), sent as written; the
                        anti-re-hang clause and the completion-report protocol are appended when it
                        lacks them (said on stderr); a file that is not UTF-8 or is above the size
                        cap is refused (exit 2, nothing sent)
  --compose KIND        compose the prompt (wake, quota-wake, fact-baseline), see below
  --model P/M           explicit provider/model
  --agent NAME          agent role (default build)
  --abort-first         abort, read idle, only then send (an explicit order: no two-sample verdict)
  --wait SECONDS        how long to read for the confirmation, and for idle after an abort (default 60)
${PROVIDERS_HELP}
  --max-prompt-kib KIB  the largest prompt sent, in KiB of UTF-8 (default ${flagDefault('--max-prompt-kib')}, at most 1024;
                        the setting prompt.maxKiB): a larger one is refused before anything is sent
  --json                print {"session","model":{"providerID","modelID"},"aborted","confirmed","sent"}
                        (sent: true, false, or "unknown" when the prompt was POSTed and its answer
                        never came; a retry reads the newest message first and never sends it twice)

${PROMPT_HELP}

Example:
  session-ops compose wake ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --out wake.md
  session-ops wake ses_8f2a --base-url http://127.0.0.1:4096 --directory "$PWD" --prompt-file wake.md --model anthropic/claude-sonnet-4 --json

${EXIT_HELP}
${ENVIRONMENT_HELP}`;

/** --facts FILE, read (UTF-8, at most `maxBytes`: its facts go into the prompt) and checked. */
export async function baselineArg(a: ParsedArgs, io: ActionIo, maxBytes?: number): Promise<FactBaselineFacts | null> {
  const path = a.values.get('--facts');
  if (path === undefined) return null;
  const text = await readTextFile(io, '--facts', path, maxBytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--facts ${path} is not JSON: ${describeError(err)}`);
  }
  const facts = readBaselineFacts(json);
  if (typeof facts === 'string') throw new UsageError(`--facts ${path}: ${facts}`);
  return facts;
}

const WAKE_TEMPLATES = ['wake', 'quota-wake', 'fact-baseline'] as const;
type WakeTemplate = (typeof WAKE_TEMPLATES)[number];

interface WakeOptions {
  session: string;
  backend: BackendArgs;
  /** The prompt file's text, or what to compose. */
  prompt: { text: string } | { compose: WakeTemplate; baseline: FactBaselineFacts | null };
  task: string | undefined;
  promptFlags: PromptFlags;
  model: ModelRef | null;
  agent: string;
  abortFirst: boolean;
  providers: ProviderScope | null;
  waitMs: number;
  json: boolean;
  /** The operator settings the flags set (--max-prompt-kib). */
  settings: OperatorSettings;
}

export const wakeCommand = defineCommand<WakeOptions, ActionIo>({
  name: 'wake',
  usage: USAGE,
  args: {
    flags: ['--json', '--abort-first', '--i-hold-authority'],
    options: [
      ...BACKEND_OPTIONS,
      '--prompt-file',
      '--compose',
      '--model',
      '--agent',
      '--wait',
      '--providers',
      '--max-prompt-kib',
      ...PROMPT_OPTIONS,
    ],
    positionals: 1,
  },
  io: defaultActionIo,
  async options(a, io) {
    const session = sessionArg(a, 'wake');
    const backend = backendArgs(a);
    const file = a.values.get('--prompt-file');
    const compose = a.values.get('--compose');
    if ((file === undefined) === (compose === undefined))
      throw new UsageError('give exactly one of --prompt-file FILE or --compose wake|quota-wake|fact-baseline');
    if (compose !== undefined && !(WAKE_TEMPLATES as readonly string[]).includes(compose))
      throw new UsageError(`--compose must be wake, quota-wake or fact-baseline, not "${compose}"`);
    const model = modelArg(a);
    const waitMs = Math.round(numberOption(a, '--wait', 60, 0) * 1000);
    const agent = a.values.get('--agent') ?? 'build';
    const settings = operatorSettingsFromFlags(a, ['--max-prompt-kib']);
    const maxBytes = monitorSettings(settings).maxPromptBytes;
    const text = file !== undefined ? await readTextFile(io, '--prompt-file', file, maxBytes) : null;
    const baseline = await baselineArg(a, io, maxBytes);
    if (compose === 'fact-baseline' && !baseline) throw new UsageError('--compose fact-baseline needs --facts FILE');
    return {
      session,
      backend,
      prompt: text !== null ? { text } : { compose: compose as WakeTemplate, baseline },
      task: a.values.get('--task'),
      promptFlags: promptFlags(a),
      model,
      agent,
      abortFirst: a.flags.has('--abort-first'),
      providers: providersArg(a),
      waitMs,
      json: a.flags.has('--json'),
      settings,
    };
  },
  run: (o, io) =>
    withMarkStore('wake', o.backend.baseUrl, io, io.clock.now, {}, async (marks) => {
      const client = clientFor(o.backend, io.env, { clock: io.clock, marks });
      try {
        const builder =
          'compose' in o.prompt
            ? promptBuilder({
                template: o.prompt.compose,
                ...promptInputs(o.promptFlags, o.backend, client, io),
                task: o.task,
                aborted: o.abortFirst,
                baseline: o.prompt.baseline,
              })
            : null;
        const text = 'text' in o.prompt ? o.prompt.text : '';
        const request: Omit<WakeRequest, 'sessionId'> = {
          prompt: builder ? (facts) => builder.build(facts) : text,
          model: o.model,
          agent: o.agent,
          abortFirst: o.abortFirst,
          providers: o.providers,
          abort: { waitMs: o.waitMs },
          confirm: { withinMs: o.waitMs },
          authority: promptInputs(o.promptFlags, o.backend, client, io).authority,
        };
        const promptOrigin = 'compose' in o.prompt ? o.prompt.compose : 'custom';
        const acted = await withOperator(
          client,
          o.backend,
          { id: o.session },
          io,
          ({ operator, target }) => operator.wake({ target, request, promptOrigin }),
          o.settings,
        );
        const r = acted.result;
        if (!r) return notStarted('wake', acted.outcome, io);
        if (r.notice) io.stderr(`session-ops wake: ${clean(r.notice)}\n`);
        if (builder?.authority) {
          io.stderr(
            `session-ops wake: the prompt speaks for orchestrator ${builder.authority.orchestrator ?? '(none: the worker fills it)'}\n`,
          );
          for (const w of builder.authority.warnings) io.stderr(`session-ops wake: warning: ${clean(w)}\n`);
        }
        if (o.json)
          io.stdout(
            `${JSON.stringify({ session: o.session, model: r.model, aborted: r.aborted, confirmed: r.confirmed, sent: r.sent })}\n`,
          );
        else io.stdout(`${clean(r.message)}\n`);
        if (r.outcome !== 'confirmed') io.stderr(`session-ops wake: ${clean(r.message)}\n`);
        if (r.outcome === 'confirmed') return EXIT.done;
        if (r.outcome === 'refused') return EXIT.refused;
        if (r.outcome === 'escalated') return EXIT.escalated;
        return EXIT.failed;
      } finally {
        await client.close();
      }
    }),
});

export const runWake = (argv: string[], io: Partial<ActionIo> = {}) => runCommand(wakeCommand, argv, io);
