// The user documentation's links: README.md (also the extension's Marketplace page and its
// details page in the editor), ARCHITECTURE.md and docs/*.md. Every relative link must reach a
// file of the repository (and a heading of it when it names one). That every link of README.md
// reaches a file the .vsix ships is checked by the vsix layer on the packaged archive
// (test/editor/run-vsix-check.mjs).
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

function pages(): string[] {
  const docs = fs.existsSync(path.join(ROOT, 'docs'))
    ? fs
        .readdirSync(path.join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`)
    : [];
  return ['README.md', 'ARCHITECTURE.md', ...docs].filter((f) => fs.existsSync(path.join(ROOT, f)));
}

/** Markdown text without fenced code blocks and inline code (their brackets are not links). */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

interface Link {
  page: string;
  target: string;
}

function linksOf(page: string): Link[] {
  const text = prose(fs.readFileSync(path.join(ROOT, page), 'utf8'));
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1])
    .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t))
    .map((target) => ({ page, target }));
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1].trim())));
}

/** Where a link leads, relative to the repository root, and the anchor it names. */
function resolve(link: Link): { file: string; anchor: string | undefined } {
  const [file, anchor] = link.target.split('#');
  const rel = file === '' ? link.page : path.posix.normalize(path.posix.join(path.posix.dirname(link.page), file));
  return { file: rel, anchor };
}

describe('docs: links', () => {
  it('README.md links to the docs/ pages and they exist', () => {
    const found = pages();
    assert.ok(found.includes('README.md'));
    assert.ok(found.filter((f) => f.startsWith('docs/')).length >= 5, `docs pages: ${found.join(', ')}`);
    const readme = new Set(linksOf('README.md').map((l) => resolve(l).file));
    const orphans = found.filter((f) => f.startsWith('docs/') && !readme.has(f));
    assert.deepEqual(orphans, [], 'docs pages the README does not link to');
  });

  it('every relative link reaches a file, and a heading of it when it names one', () => {
    const broken: string[] = [];
    for (const page of pages())
      for (const link of linksOf(page)) {
        const { file, anchor } = resolve(link);
        const full = path.join(ROOT, file);
        if (!fs.existsSync(full)) broken.push(`${page}: ${link.target} (no file ${file})`);
        else if (anchor && file.endsWith('.md') && !anchorsOf(file).has(anchor))
          broken.push(`${page}: ${link.target} (no heading #${anchor} in ${file})`);
      }
    assert.deepEqual(broken, []);
  });

  it('every path ARCHITECTURE.md names exists (the map stays true when a file moves)', () => {
    const text = fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const named = [...text.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1])
      .filter((t) => /^(src|server|test|schemas|bench|deploy|docs|scripts|media)\//.test(t) || t === 'package.json')
      .filter((t) => !/<|\.\.\./.test(t)); // a pattern (`src/cli/<verb>.ts`, `test/unit/core/...`), not a path
    assert.ok(named.length > 50, `${named.length} paths named`);
    const missing = [...new Set(named)].filter((p) => !fs.existsSync(path.join(ROOT, p.replace(/\/$/, ''))));
    assert.deepEqual(missing, [], 'paths ARCHITECTURE.md names that are not in the tree');
  });
});
