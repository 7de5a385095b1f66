// Makes sure dist/ holds a build of the current sources (the LSP tests speak to the BUILT server).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CLI, ROOT, SERVER } from './lspClient';

function newest(dir: string): number {
  let t = 0;
  if (!existsSync(dir)) return t;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) t = Math.max(t, newest(p));
    else if (/\.(ts|json|mjs)$/.test(e.name)) t = Math.max(t, statSync(p).mtimeMs);
  }
  return t;
}

export function ensureBuilt(): void {
  const sources = Math.max(
    newest(path.join(ROOT, 'server')),
    newest(path.join(ROOT, 'src', 'core')),
    newest(path.join(ROOT, 'src', 'cli')),
    newest(path.join(ROOT, 'schemas')),
  );
  const built = Math.min(...[SERVER, CLI].map((f) => (existsSync(f) ? statSync(f).mtimeMs : 0)));
  if (built >= sources) return;
  const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node esbuild.mjs failed:\n${r.stdout}\n${r.stderr}`);
}
