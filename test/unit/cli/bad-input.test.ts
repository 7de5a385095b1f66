// Issue 28, item 6: bad input is refused before anything is sent (exit 2, the reason named): a
// prompt file that is not UTF-8 (a leading BOM is dropped), an option given twice with different
// values, --spacing outside 30-60 (under 30 only with --allow-short-spacing), a prompt file above
// the size cap (prompt.maxKiB, --max-prompt-kib).
import assert from 'node:assert/strict';
import { systemClock } from '../../../src/core/clock';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultActionIo, readTextFile, type ActionIo } from '../../../src/cli/action-io';
import { parseArgv, UsageError } from '../../../src/cli/args';
import { runCompose } from '../../../src/cli/compose';
import { runDispatch } from '../../../src/cli/dispatch';
import { EXIT } from '../../../src/cli/exit-codes';
import { runRecover } from '../../../src/cli/recover';
import { settingFlag } from '../../../src/cli/setting-flags';
import { runStatus } from '../../../src/cli/status';
import { runWake } from '../../../src/cli/wake';
import { startSpecServer, type SpecServer } from '../../support/spec-server';

const DIR = '/work/project';
const MODEL = ['--model', 'openai/gpt-5'];

describe('cli: an option given twice', () => {
  const spec = { flags: ['--json'], options: ['--model', '--wait'], positionals: 1 };
  it('with different values is a usage error naming both values (the last no longer wins)', () => {
    assert.throws(
      () => parseArgv(['ses_1', '--model', 'a/b', '--model=c/d'], spec),
      (err: unknown) =>
        err instanceof UsageError &&
        /--model is given twice with different values \("a\/b" and "c\/d"\)/.test(err.message),
    );
  });
  it('with the same value passes; a flag given twice passes', () => {
    const a = parseArgv(['ses_1', '--wait', '5', '--json', '--wait=5', '--json'], spec);
    assert.equal(a.values.get('--wait'), '5');
    assert.deepEqual([...a.flags], ['--json']);
  });
});

describe('cli: --spacing is 30 to 60 seconds', () => {
  const spacing = (...argv: string[]) =>
    settingFlag(parseArgv(argv, { flags: ['--allow-short-spacing'], options: ['--spacing'] }), '--spacing');
  it('30, 45 and 60 pass; above 60 is refused with or without --allow-short-spacing', () => {
    assert.deepEqual([spacing('--spacing', '30'), spacing('--spacing', '60'), spacing()], [30, 60, 45]);
    for (const argv of [
      ['--spacing', '61'],
      ['--spacing', '3600', '--allow-short-spacing'],
    ])
      assert.throws(() => spacing(...argv), /--spacing \d+ is above 60, the most sampleSpacingSeconds allows/);
  });

  it('status and recover exit 2 on --spacing 3600 before any request; under 30 still needs --allow-short-spacing', async () => {
    const server = await startSpecServer();
    try {
      const base = ['--base-url', server.url, '--directory', DIR];
      for (const [command, argv] of [
        [runStatus, [...base, '--spacing', '3600']],
        [runStatus, [...base, '--spacing', '61', '--allow-short-spacing']],
        [runStatus, [...base, '--spacing', '10']],
        [runRecover, ['ses_1', ...base, '--spacing', '3600']],
        [runRecover, ['ses_1', ...base, '--spacing', '5']],
      ] as const) {
        let stderr = '';
        // A spacing let through would sleep it out: fail at once instead.
        const sleep = () => Promise.reject(new Error('sampled: the spacing was accepted'));
        const code = await command([...argv], {
          stderr: (t: string) => (stderr += t),
          stdout: () => undefined,
          clock: { ...systemClock, sleep },
        });
        assert.equal(code, EXIT.usage, `${argv.join(' ')}: ${stderr}`);
        assert.match(stderr, /--spacing (\d+ is above 60|\d+ is under 30 s)/);
      }
      assert.equal(server.requests.length, 0, 'nothing read, nothing sent');
    } finally {
      await server.stop();
    }
  });
});

describe('cli: prompt files are UTF-8 and within the size cap', function () {
  let server: SpecServer;
  let tmp: string;
  let base: string[];
  let env: Record<string, string>;

  beforeEach(async () => {
    server = await startSpecServer();
    server.answerPrompts = { delayMs: 50, text: 'Resumed.' };
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'] },
        { id: 'openai', models: ['gpt-5'] },
      ],
      ['anthropic', 'openai'],
    );
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-cli-bad-input-'));
    env = { SESSION_OPS_STATE_DIR: path.join(tmp, 'state') };
    base = ['--base-url', server.url, '--directory', DIR];
  });
  afterEach(async () => {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  async function run(command: (argv: string[], io: Partial<ActionIo>) => Promise<number>, argv: string[]) {
    const r = { code: -1, stdout: '', stderr: '' };
    r.code = await command(argv, {
      env,
      localInventory: [],
      stdout: (t) => (r.stdout += t),
      stderr: (t) => (r.stderr += t),
    });
    return r;
  }
  const file = (name: string, bytes: Buffer | string) => {
    const p = path.join(tmp, name);
    writeFileSync(p, bytes);
    return p;
  };

  it('a Latin-1 prompt file is refused with the offset of its first invalid byte: wake, dispatch, compose', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const latin1 = file('latin1.md', Buffer.from('Continue.\nRésumé the step.', 'latin1'));
    for (const [command, argv] of [
      [runWake, [id, ...base, '--prompt-file', latin1, ...MODEL]],
      [runDispatch, [id, ...base, '--prompt-file', latin1, ...MODEL]],
      [runCompose, ['dispatch', id, ...base, '--prompt-file', latin1]],
    ] as const) {
      const r = await run(command, [...argv]);
      assert.equal(r.code, EXIT.usage, r.stderr);
      assert.match(
        r.stderr,
        /--prompt-file \S+latin1\.md is not UTF-8: invalid byte 0xe9 at byte offset 11 \(line 2\)/,
      );
    }
    const facts = file('facts.json', Buffer.from('{"event": "caf\xe9"}', 'latin1'));
    const r = await run(runWake, [id, ...base, '--compose', 'fact-baseline', '--facts', facts, ...MODEL]);
    assert.equal(r.code, EXIT.usage, r.stderr);
    assert.match(r.stderr, /--facts \S+ is not UTF-8: invalid byte 0xe9 at byte offset 14 \(line 1\)/);
    assert.equal(server.prompts.length, 0, 'nothing sent');
    assert.equal(server.requests.length, 0, 'refused before any request');
  });

  it('a leading BOM is dropped: the prompt sent starts with the text', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const bom = file(
      'bom.md',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Continue: café.', 'utf8')]),
    );
    const r = await run(runWake, [id, ...base, '--prompt-file', bom, ...MODEL]);
    assert.equal(r.code, EXIT.done, r.stderr);
    assert.equal(server.prompts.length, 1);
    const sent = server.prompts[0].payload.parts[0].text;
    assert.ok(sent.startsWith('Continue: café.'), JSON.stringify(sent.slice(0, 20)));
    assert.ok(!sent.includes('\ufeff'));
  });

  it('a 20 MB prompt file is refused before anything is sent (exit 2), never read whole', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const big = file('big.md', Buffer.alloc(20 * 1024 * 1024, 'x'));
    for (const [command, argv] of [
      [runWake, [id, ...base, '--prompt-file', big, ...MODEL]],
      [runDispatch, [id, ...base, '--prompt-file', big, ...MODEL]],
    ] as const) {
      const r = await run(command, [...argv]);
      assert.equal(r.code, EXIT.usage, r.stderr);
      assert.match(
        r.stderr,
        /big\.md is more than 256\.0 KiB, above the prompt size cap of 256\.0 KiB \(setting prompt\.maxKiB; --max-prompt-kib raises it, up to 1024\)/,
      );
    }
    assert.equal(server.requests.length, 0, 'refused before any request');
  });

  it('--max-prompt-kib sets the cap (1 to 1024): the same file is refused under it and sent over it', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const two = file('two.md', 'Continue with the next step. '.padEnd(2048, '.'));
    let r = await run(runWake, [id, ...base, '--prompt-file', two, ...MODEL, '--max-prompt-kib', '1']);
    assert.equal(r.code, EXIT.usage, r.stderr);
    assert.match(r.stderr, /two\.md is more than 1\.0 KiB, above the prompt size cap of 1\.0 KiB/);
    r = await run(runWake, [id, ...base, '--prompt-file', two, ...MODEL, '--max-prompt-kib', '2000']);
    assert.equal(r.code, EXIT.usage, r.stderr);
    assert.match(r.stderr, /--max-prompt-kib 2000 is above 1024, the most prompt\.maxKiB allows/);
    assert.equal(server.requests.length, 0);
    r = await run(runWake, [id, ...base, '--prompt-file', two, ...MODEL, '--max-prompt-kib', '8']);
    assert.equal(r.code, EXIT.done, r.stderr);
    assert.equal(server.prompts.length, 1);
  });

  it('at the cap exactly: 1024 bytes pass (a BOM before them does not count), 1025 are refused naming the size', async () => {
    const io = defaultActionIo();
    const at = 'y'.repeat(1024);
    assert.equal(await readTextFile(io, '--prompt-file', file('at.md', at), 1024), at);
    const withBom = file('bom-at.md', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(at)]));
    assert.equal(await readTextFile(io, '--prompt-file', withBom, 1024), at);
    await assert.rejects(
      readTextFile(io, '--prompt-file', file('over.md', `${at}y`), 1024),
      /over\.md is 1\.0 KiB \(1025 bytes\), above the prompt size cap of 1\.0 KiB/,
    );
    await assert.rejects(readTextFile(io, '--prompt-file', path.join(tmp, 'absent.md'), 1024), /absent\.md: ENOENT/);
  });

  it('the cap also holds for the whole text sent: the clauses appended to a file just under it tip it over (refused, exit 3, nothing sent)', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const full = file('full.md', 'Continue with the next step. '.padEnd(1024, '.'));
    const r = await run(runWake, [id, ...base, '--prompt-file', full, ...MODEL, '--max-prompt-kib', '1']);
    assert.equal(r.code, EXIT.refused, r.stderr);
    assert.match(r.stderr, /above the cap of 1\.0 KiB \(setting prompt\.maxKiB\)/);
    assert.equal(server.prompts.length, 0);
  });

  it('an option given twice with different values: wake exits 2 and reads nothing', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle' });
    const ok = file('ok.md', 'Continue.');
    const r = await run(runWake, [id, ...base, '--prompt-file', ok, ...MODEL, '--model', 'anthropic/sonnet']);
    assert.equal(r.code, EXIT.usage, r.stderr);
    assert.match(r.stderr, /--model is given twice with different values \("openai\/gpt-5" and "anthropic\/sonnet"\)/);
    assert.equal(server.requests.length, 0);
  });
});
