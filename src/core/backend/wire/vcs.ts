// Stock opencode GET /vcs/status: the worktree's changed files. Accepted shapes: an array of
// paths, an array of {path|file} records, or an object holding such an array under `files`.
import { isObj, ShapeError } from './shape';

export function readVcsFiles(body: unknown): string[] {
  const list = Array.isArray(body) ? body : isObj(body) && Array.isArray(body.files) ? body.files : null;
  if (!list) throw new ShapeError('the VCS status is not a list of files');
  const out: string[] = [];
  for (const entry of list) {
    const p =
      typeof entry === 'string'
        ? entry
        : isObj(entry)
          ? typeof entry.path === 'string'
            ? entry.path
            : typeof entry.file === 'string'
              ? entry.file
              : null
          : null;
    if (p === null) throw new ShapeError('a VCS status entry has no path');
    out.push(p);
  }
  return out;
}
