// The wake prompt after a quota wall (spec "Endpoints" rule 5): what happened (the turn was
// killed by a quota, which provider, the expected reset), what is done (steps, commits, pull
// request state, uncommitted files), where to resume (one concrete step), the evidence rule, and
// the restated completion-report protocol with the quota self-report clause. Like every wake
// prompt it carries the anti-re-hang clause.
import type { EpochMs, FailureCategory, ModelRef, WallObserved } from '../model';
import {
  ANTI_RE_HANG_CLAUSE,
  checkFiles,
  completionReportBlock,
  EVIDENCE_RULE,
  uncommittedFilesSection,
  type ReportProtocol,
} from './clauses';
import { bullets, inline, isoTime } from './text';

/** The wall as observed: the prompt says exactly what was seen, nothing more. */
export interface WallFacts {
  provider: string | null;
  /** Null unless a message or a retry named it. */
  category: FailureCategory | null;
  resetAt: EpochMs | null;
  text?: string | null;
  /** Absent reads as a failed turn. */
  observed?: WallObserved;
  /** provider-marked: when the provider's mark was set, as the listing gives it. */
  markedAt?: EpochMs | null;
  /** The wall is over: no mark shows it and its reset has passed, so its provider may run the session again. */
  over?: boolean;
}

export interface QuotaWakeInput {
  now: EpochMs;
  wall: WallFacts;
  /** The provider/model the session is woken on (never the failed provider). */
  nextModel: ModelRef;
  done: {
    /** Steps as read (progress, todos, or given); null when nothing was read. */
    steps: string[] | null;
    /** Commits from the git log of the worktree, e.g. "abc1234 Parser: accept CRLF"; null when not read. */
    commits: string[] | null;
    /** Pull request state as given, e.g. "#34 open, CI green"; null when not known. */
    pullRequest: string | null;
    /** Null when the inventory was not available (the prompt then says so). */
    uncommittedFiles: string[] | null;
  };
  /** One concrete step. */
  resume: string;
  report: ReportProtocol;
}

const CATEGORY_TEXT: Record<FailureCategory, string> = {
  'usage-limit': 'a usage limit',
  'free-tier': 'a free-tier limit',
  'rate-limit': 'a rate limit (HTTP 429)',
  balance: 'a balance failure (HTTP 402 insufficient_quota)',
};

/** "What happened", stating exactly the observation: a failed turn, a long retry, or a frozen session on a marked provider. */
export function whatHappened(wall: WallFacts): string {
  const provider = wall.provider ? inline(wall.provider) : 'the provider (unknown)';
  const failure = wall.category ? CATEGORY_TEXT[wall.category] : 'a quota failure';
  const text = wall.text ? ` Failure text: ${inline(wall.text)}.` : '';
  if (wall.observed === 'provider-marked') {
    const mark = wall.markedAt != null ? `marked ${isoTime(wall.markedAt)}` : 'mark time not given';
    const reset = wall.resetAt !== null ? `reset ${isoTime(wall.resetAt)}` : 'reset not given';
    return `What happened: your session stopped moving while ${provider} was under a usage-limit cooldown (${mark}, ${reset}, as the provider listing gives them). No message showed a failure. The stalled turn was stopped.`;
  }
  const reset = wall.resetAt !== null ? `expected reset ${isoTime(wall.resetAt)}` : 'reset time unknown';
  if (wall.observed === 'retry')
    return `What happened: the backend kept retrying your turn on ${provider} after ${failure} (${reset}); the turn was stopped.${text}`;
  return `What happened: your previous turn was killed by ${failure} on ${provider} (${reset}).${text}`;
}

export function composeQuotaWallWakePrompt(input: QuotaWakeInput): string {
  if (!input.wall.over && input.wall.provider !== null && input.wall.provider === input.nextModel.providerID) {
    throw new Error('after a quota wall the failed provider is not acceptable for the wake');
  }
  const files = checkFiles(input.done.uncommittedFiles);
  const happened = [
    whatHappened(input.wall),
    ...(input.wall.over ? ['Its mark is gone and its reset has passed.'] : []),
    `You now run on ${inline(input.nextModel.providerID)}/${inline(input.nextModel.modelID)} (woken ${isoTime(input.now)}).`,
  ].join(' ');
  const { steps: stepList, commits: commitList } = input.done;
  const steps =
    stepList === null || stepList.length === 0
      ? '  - not known: no progress or todo list was read; check your todo list and last messages'
      : bullets(stepList.map(inline), '  ');
  const commits =
    commitList === null
      ? '  - not known: the git log of your worktree was not read; run git log'
      : commitList.length > 0
        ? bullets(commitList.map(inline), '  ')
        : '  - none in the git log of your worktree';
  const done = [
    'What is done:',
    'Steps:',
    steps,
    'Commits:',
    commits,
    `Pull request: ${input.done.pullRequest ? inline(input.done.pullRequest) : 'not known; check whether one exists before you open one'}`,
    uncommittedFilesSection(files),
  ].join('\n');
  return [
    happened,
    done,
    `Where to resume: ${inline(input.resume)}`,
    EVIDENCE_RULE,
    ANTI_RE_HANG_CLAUSE,
    completionReportBlock(input.report),
  ].join('\n\n');
}
