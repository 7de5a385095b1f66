// The bounded breadth-first walker (skipped folders, caps, symlink loops, errors reported, path
// order) and the capped text read next to it.
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readTextIfSmall } from '../../../../src/language/fs/readText';
import { compareSegments, walk, WALK_MAX_DEPTH, WALK_MAX_FILES } from '../../../../src/language/fs/walk';

describe('language/fs walk', () => {
  let tmp: string;
  const file = (rel: string, text = 'x') => {
    const full = path.join(tmp, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
    return full;
  };
  const rel = (list: { segments: readonly string[] }[]) => list.map((e) => e.segments.join('/'));

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-walk-'));
  });
  afterEach(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  it('lists files in depth-first path order, skipping dot-folders and node_modules', async () => {
    file('b.yaml');
    file('a/z.yaml');
    file('a/b/c.yaml');
    file('.git/config');
    file('node_modules/pkg/routing.yaml');
    file('a/.hidden/x.yaml');
    file('.dotfile'); // a dot-file is a file, not a folder: listed
    const r = await walk(tmp);
    assert.deepEqual(rel(r.files), ['.dotfile', 'a/b/c.yaml', 'a/z.yaml', 'b.yaml']);
    assert.deepEqual(rel(r.folders), ['a', 'a/b']);
    assert.equal(r.truncated, false);
    assert.deepEqual(r.errors, []);
    assert.equal(r.files[0].path, path.join(tmp, '.dotfile'));
  });

  it('include filters files, and refused files do not count towards the cap', async () => {
    for (let i = 0; i < 5; i++) file(`n${i}.txt`);
    file('k/one.yaml');
    file('k/two.yml');
    const r = await walk(tmp, { include: (p) => /\.ya?ml$/.test(p), maxFiles: 2 });
    assert.deepEqual(rel(r.files), ['k/one.yaml', 'k/two.yml']);
    assert.equal(r.truncated, false);
  });

  it('stops at the file cap and says so', async () => {
    for (let i = 0; i < 6; i++) file(`f${i}`);
    const r = await walk(tmp, { maxFiles: 4 });
    assert.equal(r.files.length, 4);
    assert.equal(r.truncated, true);
  });

  it('stops after reading the folder cap', async () => {
    for (let i = 0; i < 5; i++) file(`d${i}/f.txt`);
    const r = await walk(tmp, { maxFolders: 3 }); // the root and two folders
    assert.deepEqual(rel(r.files), ['d0/f.txt', 'd1/f.txt']);
    assert.equal(r.truncated, true);
  });

  it('does not enter folders deeper than the depth cap (root = 0)', async () => {
    file('1/2/3/deep.txt');
    file('1/shallow.txt');
    const r = await walk(tmp, { maxDepth: 2 });
    assert.deepEqual(rel(r.files), ['1/shallow.txt']);
    assert.deepEqual(rel(r.folders), ['1', '1/2', '1/2/3']);
    assert.equal(r.truncated, true);
  });

  it('caps cannot be raised above the documented ones', async () => {
    assert.ok(WALK_MAX_DEPTH >= 8 && WALK_MAX_FILES >= 1000);
    let p = '';
    for (let i = 0; i <= WALK_MAX_DEPTH + 1; i++) p += `d${i}/`;
    file(`${p}f.txt`);
    const r = await walk(tmp, { maxDepth: 1000 });
    assert.deepEqual(r.files, []);
    assert.equal(r.truncated, true);
  });

  it('descend=false lists a folder without entering it', async () => {
    file('ports/a/source-analysis/01-source-overview.md');
    file('ports/a/src/x.ts');
    const r = await walk(tmp, { descend: (f) => path.basename(f) !== 'source-analysis' });
    assert.deepEqual(rel(r.files), ['ports/a/src/x.ts']);
    assert.ok(rel(r.folders).includes('ports/a/source-analysis'));
  });

  it('follows symbolic links once: a loop ends, a dangling link is skipped', async () => {
    file('real/r.yaml');
    symlinkSync(path.join(tmp, 'real'), path.join(tmp, 'link'));
    symlinkSync(tmp, path.join(tmp, 'real', 'loop')); // real/loop -> root
    symlinkSync(path.join(tmp, 'nowhere'), path.join(tmp, 'dangling'));
    symlinkSync(path.join(tmp, 'real', 'r.yaml'), path.join(tmp, 'alias.yaml'));
    const r = await walk(tmp);
    const files = rel(r.files);
    assert.ok(files.includes('alias.yaml'));
    assert.ok(files.includes('real/r.yaml') || files.includes('link/r.yaml'));
    assert.equal(files.filter((f) => f.endsWith('r.yaml')).length, 1, files.join(', '));
    assert.deepEqual(r.errors, []);
  });

  it('reports a missing root and unreadable folders instead of throwing', async () => {
    const missing = await walk(path.join(tmp, 'absent'));
    assert.equal(missing.errors.length, 1);
    assert.equal(missing.errors[0].error.code, 'ENOENT');
    assert.deepEqual(missing.files, []);
    if (process.platform !== 'win32' && process.getuid?.() !== 0) {
      file('locked/x.txt');
      file('open/y.txt');
      chmodSync(path.join(tmp, 'locked'), 0o000);
      try {
        const r = await walk(tmp);
        assert.deepEqual(rel(r.files), ['open/y.txt']);
        assert.deepEqual(
          r.errors.map((e) => e.segments.join('/')),
          ['locked'],
        );
      } finally {
        chmodSync(path.join(tmp, 'locked'), 0o755);
      }
    }
  });

  it('compareSegments orders a folder before the names after it', () => {
    const list = [['b'], ['a', 'z'], ['a'], ['a', 'b', 'c'], ['a-b']];
    assert.deepEqual(list.sort(compareSegments), [['a'], ['a', 'b', 'c'], ['a', 'z'], ['a-b'], ['b']]);
  });
});

describe('language/fs readTextIfSmall', () => {
  it('reads small files; folders, missing and too large files give undefined', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'so-read-'));
    try {
      writeFileSync(path.join(tmp, 'a.txt'), 'hello');
      assert.equal(await readTextIfSmall(path.join(tmp, 'a.txt')), 'hello');
      assert.equal(await readTextIfSmall(path.join(tmp, 'a.txt'), 4), undefined);
      assert.equal(await readTextIfSmall(tmp), undefined);
      assert.equal(await readTextIfSmall(path.join(tmp, 'absent')), undefined);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
