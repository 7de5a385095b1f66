// The one page-folder reader: members only, each file capped, unreadable ones left out, path order.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readFolderTexts } from '../../../../src/language/fs/readFolder';

describe('language/fs readFolderTexts', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-readfolder-'));
  });
  afterEach(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  it('reads the member files of the folder only, in path order', async () => {
    writeFileSync(path.join(tmp, 'b.md'), 'B');
    writeFileSync(path.join(tmp, 'a.md'), 'A');
    writeFileSync(path.join(tmp, 'c.txt'), 'not a member');
    mkdirSync(path.join(tmp, 'd.md'));
    writeFileSync(path.join(tmp, 'd.md', 'e.md'), 'in a subfolder');
    symlinkSync(path.join(tmp, 'a.md'), path.join(tmp, 'link.md'));
    const texts = await readFolderTexts(tmp, (p) => p.endsWith('.md'));
    assert.deepEqual(
      [...texts].map(([p, t]) => [path.basename(p), t]),
      [
        ['a.md', 'A'],
        ['b.md', 'B'],
        ['link.md', 'A'],
      ],
    );
  });

  it('leaves out a file over the cap and a dangling link; a missing folder reads as empty', async () => {
    writeFileSync(path.join(tmp, 'small.md'), '12345');
    writeFileSync(path.join(tmp, 'large.md'), '123456');
    symlinkSync(path.join(tmp, 'gone.md'), path.join(tmp, 'dangling.md'));
    const texts = await readFolderTexts(tmp, () => true, 5);
    assert.deepEqual(
      [...texts.keys()].map((p) => path.basename(p)),
      ['small.md'],
    );
    assert.equal((await readFolderTexts(path.join(tmp, 'missing'), () => true)).size, 0);
  });
});
