// composePrompt(template, inputs): the prompt the editor and the CLI send, built only from
// src/core/prompt. Kinds: wake (idle/hung/failed), quota-wake (after a quota wall), fact-baseline
// (a stale worldview), dispatch (a task plus the completion-report block with the quota
// self-report clause appended unchanged). Returns a readable problem instead of throwing.
import type { EpochMs, ModelRef } from '../model';
import { composeDispatchPrompt } from '../prompt/dispatch';
import { composeFactBaseline, factBaselineProblem, type Assignment, type Fact } from '../prompt/fact-baseline';
import { composeQuotaWallWakePrompt, type WallFacts } from '../prompt/quota-wake';
import { composeWakePrompt, type WakeReason } from '../prompt/wake';
import { retaskRefusal, type Authority } from './authority';
import type { Inventory } from './inventory';
import { describeError } from '../error-message';

export type PromptTemplate = 'wake' | 'quota-wake' | 'fact-baseline' | 'dispatch';
export const PROMPT_TEMPLATES: readonly PromptTemplate[] = ['wake', 'quota-wake', 'fact-baseline', 'dispatch'];

export interface FactBaselineFacts {
  event: string;
  facts: Fact[];
  invalidAssumptions?: string[];
  assignment: Assignment;
}

export interface ComposeInputs {
  now: EpochMs;
  authority: Authority;
  inventory: Inventory;
  /** The task (wake: defaults to the session title; dispatch: required). */
  task?: string | null;
  /** One concrete step to resume with. */
  resume?: string | null;
  wakeReason?: WakeReason;
  failureText?: string | null;
  /** quota-wake: the wall and the model the session is woken on. */
  wall?: WallFacts | null;
  nextModel?: ModelRef | null;
  steps?: string[] | null;
  pullRequest?: string | null;
  /** fact-baseline: the facts (entered by a person or read from a file). */
  baseline?: FactBaselineFacts | null;
}

export type Composed =
  | { ok: true; template: PromptTemplate; text: string }
  /** `code` not-authority: authority rule 1 refused it (authority.ts retaskRefusal). */
  | { ok: false; template: PromptTemplate; problem: string; code?: 'not-authority' };

const DEFAULT_RESUME =
  'the next unfinished step of your task: re-read the ticket and your last messages, re-validate the uncommitted files, then continue';

function fillNote(a: Authority): string | null {
  // What the report block could not name (the recorded assigner may fill what this prompt does not say).
  const missing = [
    a.report.ticket ? null : 'your ticket reference',
    a.report.orchestratorSessionId ? null : 'your orchestrator session id',
  ].filter(Boolean);
  if (missing.length === 0) return null;
  return (
    `Session Ops did not read ${missing.join(' or ')} (unknown: not in this session's title, its messages read or its record): ` +
    'take them from your assignment (ticket assignee, claim comment, orchestrator session id) before you report; verify them at their source.'
  );
}

export function composePrompt(template: PromptTemplate, inputs: ComposeInputs): Composed {
  const fail = (problem: string): Composed => ({ ok: false, template, problem });
  if (template === 'fact-baseline' || template === 'dispatch') {
    const refusal = retaskRefusal(inputs.authority, template);
    if (refusal) return { ok: false, template, problem: refusal, code: 'not-authority' };
  }
  const report = inputs.authority.report;
  const files = inputs.inventory.files;
  let text: string;
  try {
    switch (template) {
      case 'wake':
        text = composeWakePrompt({
          reason: inputs.wakeReason ?? 'idle',
          now: inputs.now,
          task: inputs.task?.trim() || 'the task assigned to this session (see the ticket)',
          resume: inputs.resume?.trim() || DEFAULT_RESUME,
          uncommittedFiles: files,
          report,
          failureText: inputs.failureText ?? null,
        });
        break;
      case 'quota-wake':
        if (!inputs.wall) return fail('the session is not at a quota wall: compose a wake prompt instead');
        if (!inputs.nextModel)
          return fail('a quota-wall wake prompt names the model the session is woken on: add --model PROVIDER/MODEL');
        text = composeQuotaWallWakePrompt({
          now: inputs.now,
          wall: inputs.wall,
          nextModel: inputs.nextModel,
          done: {
            steps: inputs.steps ?? null,
            commits: inputs.inventory.commits,
            pullRequest: inputs.pullRequest ?? null,
            uncommittedFiles: files,
          },
          resume: inputs.resume?.trim() || DEFAULT_RESUME,
          report,
        });
        break;
      case 'fact-baseline':
        if (!inputs.baseline)
          return fail(
            'a fact baseline needs its facts: give --facts FILE (JSON: event, facts [{statement, source, at}], invalidAssumptions, assignment)',
          );
        text = composeFactBaseline({
          ...inputs.baseline,
          invalidAssumptions: inputs.baseline.invalidAssumptions ?? [],
          now: inputs.now,
          uncommittedFiles: files,
          report,
        });
        break;
      case 'dispatch':
        if (!inputs.task || inputs.task.trim() === '')
          return fail('a dispatch prompt needs the task: give --prompt-file FILE');
        text = composeDispatchPrompt(inputs.task, report);
        break;
    }
  } catch (err) {
    return fail(describeError(err));
  }
  const note = fillNote(inputs.authority);
  return { ok: true, template, text: note ? `${text}\n${note}` : text };
}

/** Reads a fact-baseline file's JSON into FactBaselineFacts, or says what is wrong (naming the part). */
export function readBaselineFacts(json: unknown): FactBaselineFacts | string {
  if (typeof json !== 'object' || json === null) return 'the facts file must hold a JSON object';
  const o = json as Record<string, unknown>;
  if (typeof o.event !== 'string') return 'facts file: "event" (what happened) is required';
  if (!Array.isArray(o.facts) || o.facts.length === 0)
    return 'facts file: "facts" must be a non-empty array of {statement, source, at}';
  const facts: Fact[] = [];
  for (const f of o.facts) {
    const x = f as Record<string, unknown>;
    if (
      typeof x !== 'object' ||
      x === null ||
      typeof x.statement !== 'string' ||
      typeof x.source !== 'string' ||
      !(typeof x.at === 'string' || typeof x.at === 'number')
    ) {
      return 'facts file: every fact needs "statement", "source" (artifact link) and "at" (time)';
    }
    facts.push({ statement: x.statement, source: x.source, at: x.at });
  }
  const inv = o.invalidAssumptions ?? [];
  if (!Array.isArray(inv) || !inv.every((s) => typeof s === 'string'))
    return 'facts file: "invalidAssumptions" must be an array of strings (["none"] when none is invalid)';
  let assignment: Assignment;
  const a = o.assignment as Record<string, unknown> | undefined;
  if (typeof o.assignment === 'string') assignment = { kind: 'task', step: o.assignment };
  else if (a && a.kind === 'task' && typeof a.step === 'string') assignment = { kind: 'task', step: a.step };
  else if (a && a.kind === 'standby' && typeof a.until === 'string') assignment = { kind: 'standby', until: a.until };
  else if (a && a.kind === 'standby') assignment = { kind: 'standby', until: '' };
  else return 'facts file: "assignment" must be a step (string), {kind:"task", step} or {kind:"standby", until}';
  const baseline = { event: o.event, facts, invalidAssumptions: inv as string[], assignment };
  const problem = factBaselineProblem(baseline);
  return problem ? `facts file: ${problem}` : baseline;
}
