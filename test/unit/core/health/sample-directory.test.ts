// sampleDirectoryOnce, the one "sample a directory once" step under the CLI's loop and the session
// monitor's rounds, against the spec-dialect test server (real HTTP).
import { clockReading } from '../../../support/manual-clock';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ActivityCounter } from '../../../../src/core/backend/activity';
import { BackendClient } from '../../../../src/core/backend/client';
import type { MarkRecorder } from '../../../../src/core/health/record-walls';
import { sampleDirectoryOnce } from '../../../../src/core/health/sample-directory';
import { SampleHistory } from '../../../../src/core/health/sample-history';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

describe('health/sample-directory: sampleDirectoryOnce', () => {
  const DIR = '/work/repo';
  let server: SpecServer;
  let clock: number;
  let client: BackendClient;
  let history: SampleHistory;

  beforeEach(async () => {
    server = await startSpecServer();
    server.setProviders([{ id: 'openai' }], ['openai']);
    clock = Date.UTC(2026, 10, 22, 10, 0, 0);
    client = new BackendClient({ baseUrl: server.url, clock: clockReading(() => clock), timeoutMs: 2_000 });
    history = new SampleHistory({ spacingMs: 45_000 });
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  it('a whole round: every listed session sampled into the history; sessions gone are forgotten', async () => {
    const d = server.directory(DIR);
    const a = d.addSession({ state: 'idle' });
    d.addMessage(a, { text: 'a' });
    const b = d.addSession({ state: 'generating', progress: { stepCount: 1, lastStepAt: clock } });
    d.addMessage(b, { text: 'b' });
    const activity = new ActivityCounter();
    activity.onEvent({ type: 'message.part.delta', sessionID: 'ses_gone' } as never);
    const first = await sampleDirectoryOnce(client, DIR, history, { activity });
    assert.deepEqual(new Set(first?.samples.map((s) => s.session.id)), new Set([a, b]));
    assert.deepEqual(new Set(history.sessionIds()), new Set([a, b]));
    assert.equal(activity.count('ses_gone'), 0, 'the counter forgets sessions not listed');
    const reads = server.requests.filter((r) => r.path.endsWith('/message'));
    assert.ok(reads.length === 2 && reads.every((r) => r.query.limit === '1'), 'newest message only, once each');

    d.removeSession(a);
    clock += 45_000;
    await sampleDirectoryOnce(client, DIR, history);
    assert.deepEqual(history.sessionIds(), [b]);
    assert.equal(history.count(b), 2);
  });

  it('named sessions only: the list is read, only their newest messages; the others keep their samples', async () => {
    const d = server.directory(DIR);
    const a = d.addSession({ state: 'idle' });
    const b = d.addSession({ state: 'idle' });
    await sampleDirectoryOnce(client, DIR, history);
    clock += 45_000;
    const round = await sampleDirectoryOnce(client, DIR, history, { sessionIds: [b] });
    assert.equal(round?.partial, true);
    assert.deepEqual(
      round?.samples.map((s) => s.session.id),
      [b],
    );
    assert.deepEqual([history.count(a), history.count(b)], [1, 2]);
  });

  it('a stale caller: the round is dropped and nothing is recorded', async () => {
    server.directory(DIR).addSession({ state: 'idle' });
    const round = await sampleDirectoryOnce(client, DIR, history, { stale: () => true });
    assert.equal(round, null);
    assert.deepEqual(history.sessionIds(), []);
  });

  it('walls are recorded in the mark book only on a backend without quota objects', async () => {
    const d = server.directory(DIR);
    const s = d.addSession({ state: 'idle' });
    d.addMessage(s, {
      finish: 'error',
      error: { text: 'usage limit reached', reason: 'account_usage_limit', provider: 'openai' },
    });
    const calls: string[] = [];
    const marks: MarkRecorder = {
      record: (p) => void calls.push(`record ${p}`),
      observeSuccess: (p) => void calls.push(`success ${p}`),
    };
    await sampleDirectoryOnce(client, DIR, history, { marks });
    assert.equal(client.capabilities?.quotaObjects, true);
    assert.deepEqual(calls, []);

    // The same round through a backend that keeps no quota objects: the wall goes into the book.
    const noQuotaObjects = {
      sampleRound: client.sampleRound.bind(client),
      capabilities: { ...client.capabilities!, quotaObjects: false },
    };
    clock += 45_000;
    await sampleDirectoryOnce(noQuotaObjects, DIR, history, { marks });
    assert.deepEqual(calls, ['record openai']);
  });

  it('is the only caller of sampleRound in src/ (the CLI loop and the monitor share it)', () => {
    const root = path.resolve(__dirname, '../../../..');
    const callers: string[] = [];
    const visit = (dir: string) => {
      for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = path.posix.join(dir, e.name);
        if (e.isDirectory()) visit(rel);
        else if (rel.endsWith('.ts') && /(?<!super)\.sampleRound\(/.test(fs.readFileSync(path.join(root, rel), 'utf8')))
          callers.push(rel);
      }
    };
    visit('src');
    assert.deepEqual(callers, ['src/core/health/sample-directory.ts']);
  });
});
