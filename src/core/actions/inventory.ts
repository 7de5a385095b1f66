// Uncommitted files (and recent commits) of a session's worktree, for wake prompts (spec
// Endpoints rule 2, recovery step 2). Sources are tried in order: the backend's own view (stock
// opencode GET /vcs/status with the session's directory, which works for remote servers; never
// asked about another directory), then git in the worktree when it is local (git-inventory.ts,
// node only). When none answers, the prompt says the inventory was not
// available.
import type { ActionBackend } from './executor-context';
import { describeError } from '../error-message';

export interface Inventory {
  /** Null: not available (see `note`). */
  files: string[] | null;
  /** Recent commits from the git log of the worktree; null when no source read them. */
  commits: string[] | null;
  source: 'vcs-status' | 'git' | null;
  note: string;
}

export interface InventoryRequest {
  /** The session's directory: the only directory a backend request carries. */
  directory: string;
  /** A local worktree to read instead (with git, locally); absent: the session's directory. */
  worktree?: string;
  signal?: AbortSignal;
}

/** One source; returns null when it cannot tell (not a repository, no endpoint, not local). */
export type WorktreeInventory = (req: InventoryRequest) => Promise<Inventory | null>;

export function backendInventory(backend: Pick<ActionBackend, 'vcsStatus'>, timeoutMs = 15_000): WorktreeInventory {
  return async ({ directory, worktree, signal }) => {
    // The backend answers for the session's directory only; another worktree is read locally.
    if (worktree !== undefined && worktree !== directory) return null;
    try {
      const files = await backend.vcsStatus(directory, { signal, timeoutMs });
      return files === null
        ? null
        : { files, commits: null, source: 'vcs-status', note: 'from the backend (GET /vcs/status)' };
    } catch {
      return null;
    }
  };
}

/** Tries each source in turn; the first answer wins. Never throws. */
export async function takeInventory(sources: WorktreeInventory[], req: InventoryRequest): Promise<Inventory> {
  const tried: string[] = [];
  for (const source of sources) {
    try {
      const got = await source(req);
      if (got) return got;
    } catch (err) {
      tried.push(describeError(err));
    }
  }
  return {
    files: null,
    commits: null,
    source: null,
    note: `the inventory was not available${tried.length ? ` (${tried.join('; ')})` : ''}`,
  };
}
