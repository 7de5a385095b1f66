// The prompt the editor or the CLI sends for a session, built once the model is chosen: the
// worktree inventory (sources in order, the worktree directory overridable), whom the prompt
// speaks for and the ticket (authority.ts), then composePrompt. Used as a PromptSource by
// wakeSession and as the prompt of recoverSession; `authority` keeps the last resolution so the
// caller can show which orchestrator the prompt speaks for and any warning. A wake of a session
// at a quota wall is composed as the quota-wall wake prompt (spec Endpoints rule 5).
import { tailProbe } from '../health/quota-wall';
import type { EpochMs, Progress, QuotaWall, TodoProgress } from '../model';
import { resolveAuthority, type Authority, type AuthorityInput } from './authority';
import { composePrompt, type PromptTemplate, type Composed, type FactBaselineFacts } from './compose';
import { takeInventory, type Inventory, type WorktreeInventory } from './inventory';
import type { PromptFacts } from './send';

export interface PromptBuilderOptions {
  template: PromptTemplate;
  now: () => EpochMs;
  inventory: WorktreeInventory[];
  /** The session's directory on the backend (the only directory a backend request carries). */
  directory: string;
  /** The worktree to inventory (the session's directory, or a local one read with git). */
  worktree: string;
  authority: Omit<AuthorityInput, 'sessionTitle' | 'newestUserText'>;
  task?: string | null;
  resume?: string | null;
  /** The session was aborted before this wake (hung). */
  aborted?: boolean;
  baseline?: FactBaselineFacts | null;
  pullRequest?: string | null;
  steps?: string[];
  /** Reads the session's todo list (null when the backend keeps none); a failed read counts as none. */
  todos?: (sessionId: string) => Promise<TodoProgress | null>;
  signal?: AbortSignal;
}

/** The steps as read: given ones, else the todo list's counts, else the progress counter; null when nothing was read. */
export function stepsRead(
  given: string[] | undefined,
  todos: TodoProgress | null,
  progress: Progress | null,
): string[] | null {
  if (given && given.length > 0) return given;
  const out: string[] = [];
  if (todos && todos.total > 0) {
    const inProgress = todos.inProgress ? `; in progress: ${todos.inProgress}` : '';
    out.push(`${todos.done} of ${todos.total} todo items completed (your todo list)${inProgress}`);
  }
  if (progress) out.push(`${progress.stepCount} model rounds so far (the session's progress.stepCount)`);
  return out.length > 0 ? out : null;
}

export interface PromptBuilder {
  build(facts: PromptFacts & { wall?: QuotaWall | null }): Promise<Composed>;
  authority: Authority | null;
  inventory: Inventory | null;
}

export function promptBuilder(o: PromptBuilderOptions): PromptBuilder {
  const self: PromptBuilder = {
    authority: null,
    inventory: null,
    async build(facts) {
      const newest = facts.newest;
      const authority = resolveAuthority({
        ...o.authority,
        sessionTitle: facts.session.title,
        newestUserText: newest && newest.role === 'user' ? newest.text : null,
        assigned: facts.assigned ?? null,
      });
      const inventory =
        o.template === 'dispatch'
          ? { files: null, commits: null, source: null, note: 'not needed for a dispatch' }
          : await takeInventory(o.inventory, { directory: o.directory, worktree: o.worktree, signal: o.signal });
      self.authority = authority;
      self.inventory = inventory;
      const now = o.now();
      const wall = facts.wall ?? tailProbe({ at: now, session: facts.session, newest }) ?? null;
      // A quota-walled session is always woken with the quota-wall prompt (spec Endpoints rule 5).
      const template = o.template === 'wake' && wall ? 'quota-wake' : o.template;
      return composePrompt(template, {
        now,
        authority,
        inventory,
        task: o.task ?? facts.session.title,
        resume: o.resume,
        wakeReason: o.aborted ? 'hung' : newest?.failure && newest.role === 'assistant' ? 'failed' : 'idle',
        failureText: newest?.failure?.text ?? null,
        wall: wall
          ? {
              provider: wall.provider,
              category: wall.category,
              resetAt: wall.resetAt,
              text: wall.text,
              observed: wall.observed,
              markedAt: wall.markedAt ?? null,
              over: wall.provider !== null && facts.wallProvider !== wall.provider,
            }
          : null,
        nextModel: facts.model,
        steps:
          template === 'quota-wake'
            ? stepsRead(
                o.steps,
                o.todos ? await o.todos(facts.session.id).catch(() => null) : null,
                facts.session.progress,
              )
            : o.steps,
        pullRequest: o.pullRequest,
        baseline: o.baseline,
      });
    },
  };
  return self;
}
