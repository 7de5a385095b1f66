// Layering rules read from the source tree: what src/core/backend may import, who may issue the
// send guard's brand, that no dialect name is compared outside src/core/backend (callers ask the
// adapter's capabilities or its display name instead), and that folders are read in src/language/fs only.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sources(rel));
    else if (/\.tsx?$/.test(entry.name)) out.push(rel);
  }
  return out;
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/\bfrom\s+'([^']+)'/g)].map((m) => m[1]);
}

const DIALECT_COMPARISON = [
  /(===|!==|==|!=)\s*['"`](spec|opencode)['"`]/,
  /['"`](spec|opencode)['"`]\s*(===|!==|==|!=)/,
  /\bcase\s+['"`](spec|opencode)['"`]\s*:/,
  /\bdialect\s*(===|!==|==|!=)/,
  /(===|!==|==|!=)\s*[\w.?]*\bdialect\b/,
];

describe('layers', () => {
  it('src/core/settings (the settings model, a leaf every layer may read) imports only itself', () => {
    const climbing: string[] = [];
    for (const file of sources('src/core/settings'))
      for (const spec of importsOf(file)) if (!spec.startsWith('./')) climbing.push(`${file} imports ${spec}`);
    assert.deepEqual(climbing, []);
  });

  it('src/core/backend imports only itself, the domain model, the clock, the failure categories and the settings model', () => {
    const climbing: string[] = [];
    for (const file of sources('src/core/backend')) {
      for (const spec of importsOf(file)) {
        if (!spec.startsWith('.')) continue;
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
        if (target.startsWith('src/core/backend/') || target === 'src/core/backend') continue;
        if (target === 'src/core/model' || target === 'src/core/failure-category' || target === 'src/core/clock')
          continue;
        if (target.startsWith('src/core/settings/')) continue;
        climbing.push(`${file} imports ${spec}`);
      }
    }
    assert.deepEqual(climbing, []);
  });

  it('only the send guard issues a guarded prompt', () => {
    const issuers = [...sources('src'), ...sources('server')].filter(
      (f) =>
        f !== 'src/core/backend/guarded-prompt.ts' &&
        /\bissueGuardedPrompt\b/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')),
    );
    assert.deepEqual(issuers, ['src/core/actions/guard.ts']);
  });

  it('no dialect name is compared outside src/core/backend', () => {
    const found: string[] = [];
    for (const file of [...sources('src'), ...sources('server')]) {
      if (file.startsWith('src/core/backend/')) continue;
      const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (DIALECT_COMPARISON.some((re) => re.test(line))) found.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
    assert.deepEqual(found, []);
  });

  it('folders are listed only in src/language/fs (the bounded walk and the page-folder reader)', () => {
    const listing = [...sources('src'), ...sources('server')].filter(
      (f) =>
        !f.startsWith('src/language/fs/') && /\breaddir(Sync)?\s*\(/.test(fs.readFileSync(path.join(ROOT, f), 'utf8')),
    );
    assert.deepEqual(listing, []);
  });
});
