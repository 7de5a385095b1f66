import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gitInventory } from '../../../../src/core/actions/git-inventory';
import { backendInventory, takeInventory } from '../../../../src/core/actions/inventory';
import { readVcsFiles } from '../../../../src/core/backend/wire/vcs';

describe('worktree inventory', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const tmp = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'so-inv-'));
    dirs.push(d);
    return d;
  };

  it('git: uncommitted files (modified, new, with spaces) and recent commits', async () => {
    const d = tmp();
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: d });
    git('init', '-q');
    writeFileSync(path.join(d, 'a.ts'), 'a');
    git('add', 'a.ts');
    git('commit', '-qm', 'first commit');
    writeFileSync(path.join(d, 'a.ts'), 'b');
    writeFileSync(path.join(d, 'new file.md'), 'n');
    const inv = await gitInventory()({ directory: d });
    assert.ok(inv);
    assert.deepEqual(inv.files?.sort(), ['a.ts', 'new file.md']);
    assert.match(inv.commits?.[0] ?? '', /first commit$/);
    assert.equal(inv.source, 'git');
  });

  it('not a repository or not local: no answer; the chain then says the inventory was not available', async () => {
    assert.equal(await gitInventory()({ directory: tmp() }), null);
    assert.equal(await gitInventory()({ directory: '/no/such/dir' }), null);
    const inv = await takeInventory(
      [
        gitInventory(),
        async () => {
          throw new Error('boom');
        },
      ],
      { directory: '/no/such/dir' },
    );
    assert.deepEqual([inv.files, inv.source], [null, null]);
    assert.match(inv.note, /not available \(boom\)/);
  });

  it('the backend view (GET /vcs/status) comes first; a 404 or an error falls through', async () => {
    const answering = backendInventory({ vcsStatus: async () => ['x.ts'] });
    const missing = backendInventory({ vcsStatus: async () => null });
    const failing = backendInventory({
      vcsStatus: async () => {
        throw new Error('down');
      },
    });
    const git = async () => ({ files: ['g.ts'], commits: [], source: 'git' as const, note: 'git' });
    assert.deepEqual((await takeInventory([answering, git], { directory: '/d' })).files, ['x.ts']);
    assert.deepEqual((await takeInventory([missing, failing, git], { directory: '/d' })).files, ['g.ts']);
  });

  it('reads the VCS status shapes and rejects others', () => {
    assert.deepEqual(readVcsFiles(['a', 'b']), ['a', 'b']);
    assert.deepEqual(readVcsFiles([{ path: 'a', status: 'modified' }, { file: 'b' }]), ['a', 'b']);
    assert.deepEqual(readVcsFiles({ files: ['c'] }), ['c']);
    assert.throws(() => readVcsFiles({}), /not a list/);
    assert.throws(() => readVcsFiles([{}]), /no path/);
  });

  it('a local --worktree is read with git only; the backend is asked about the session directory alone', async () => {
    const asked: string[] = [];
    const backend = {
      vcsStatus: async (directory: string) => {
        asked.push(directory);
        return ['from-backend.ts'];
      },
    };
    const d = tmp();
    execFileSync('git', ['init', '-q'], { cwd: d });
    writeFileSync(path.join(d, 'local.ts'), 'x');
    const inv = await takeInventory([backendInventory(backend), gitInventory()], {
      directory: '/srv/session dir',
      worktree: d,
    });
    assert.deepEqual(asked, [], 'GET /vcs/status is never sent with another directory');
    assert.deepEqual([inv.source, inv.files], ['git', ['local.ts']]);
    const same = await takeInventory([backendInventory(backend)], { directory: '/srv/session dir' });
    assert.deepEqual(asked, ['/srv/session dir']);
    assert.deepEqual(same.files, ['from-backend.ts']);
  });
});
