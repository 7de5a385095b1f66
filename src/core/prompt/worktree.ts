// Uncommitted files of a worktree from `git status --porcelain=v1 -z` output (the caller runs
// git; this stays pure). Renames name the new path.

export function parsePorcelainZ(output: string): string[] {
  const files: string[] = [];
  const entries = output.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e.length < 4) continue;
    const xy = e.slice(0, 2);
    files.push(e.slice(3));
    if (xy[0] === 'R' || xy[0] === 'C') i++; // the original path follows
  }
  return files;
}
