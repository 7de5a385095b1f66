// Node only: uncommitted files and recent commits from `git` in a local directory. Injectable as a
// WorktreeInventory so the extension host can use it too. Bounded: each git call has a timeout.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parsePorcelainZ } from '../prompt/worktree';
import type { WorktreeInventory } from './inventory';

function git(args: string[], cwd: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args,
      { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, signal, encoding: 'utf8' },
      (err, stdout) => (err ? reject(err) : resolve(stdout)),
    );
  });
}

export function gitInventory(options: { timeoutMs?: number; commits?: number } = {}): WorktreeInventory {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async ({ directory: sessionDirectory, worktree, signal }) => {
    const directory = worktree ?? sessionDirectory;
    if (!existsSync(directory)) return null;
    let status: string;
    try {
      status = await git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], directory, timeoutMs, signal);
    } catch {
      return null; // not a repository, or git is missing
    }
    let commits: string[];
    try {
      const log = await git(
        ['log', '--oneline', '--no-decorate', `-n${options.commits ?? 5}`],
        directory,
        timeoutMs,
        signal,
      );
      commits = log.split('\n').filter((l) => l.trim() !== '');
    } catch {
      commits = []; // a repository without commits
    }
    return { files: parsePorcelainZ(status), commits, source: 'git', note: `from git in ${directory}` };
  };
}
