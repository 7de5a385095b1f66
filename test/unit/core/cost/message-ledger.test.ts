import assert from 'node:assert/strict';
import { ActivityCounter, MAX_ANNOUNCED_PER_SESSION } from '../../../../src/core/backend/activity';
import { BackendError } from '../../../../src/core/backend/errors';
import { toBackendEvent } from '../../../../src/core/backend/events';
import { toMessageSnapshot } from '../../../../src/core/backend/wire/message';
import { readMessagePage } from '../../../../src/core/backend/wire/message-page';
import { ShapeError } from '../../../../src/core/backend/wire/shape';
import { MessageLedger, type LedgerBackend } from '../../../../src/core/cost/message-ledger';
import { rollUpCosts } from '../../../../src/core/cost/rollup';
import type { SessionCost, SessionSample } from '../../../../src/core/model';
import { assistant, msgId, PagedTranscripts, user } from '../../../support/paged-transcripts';

interface Call {
  session: string;
  limit: number;
  before: string | null;
}

/** A ledger backend over in-memory transcripts, through the real page reader; records each call. */
function backend(t: PagedTranscripts, messageCost = true) {
  const calls: Call[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const client: LedgerBackend & { calls: Call[]; maxInFlight: () => number } = {
    calls,
    maxInFlight: () => maxInFlight,
    capabilities: { events: true, sessionStatus: true, quotaObjects: false, progress: false, messageCost },
    async messagePage(_directory, session, page) {
      calls.push({ session, limit: page.limit, before: page.before ?? null });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setImmediate(r));
      inFlight--;
      const answer = t.page(session, page.limit, page.before ?? null);
      const op = 'GET /session/{id}/message (page)';
      if (answer.status === 404)
        throw new BackendError({ code: 'not-found', operation: op, baseUrl: 'http://x/', sessionId: session });
      if (answer.status !== 200)
        throw new BackendError({ code: 'rejected', operation: op, baseUrl: 'http://x/', status: answer.status });
      try {
        return readMessagePage(answer.body, answer.headers);
      } catch (err) {
        if (err instanceof ShapeError)
          throw new BackendError({ code: 'malformed', operation: op, baseUrl: 'http://x/', detail: err.message });
        throw err;
      }
    },
  };
  return client;
}

/** The sample a liveness round takes of a session: its list entry and its newest message. */
function sample(t: PagedTranscripts, id: string, listCost: SessionCost | null = null, updatedAt = 1): SessionSample {
  const newest = t.newest(id);
  return {
    at: 0,
    session: { id, title: null, state: 'idle', retry: null, progress: null, updatedAt, cost: listCost },
    newest: newest ? toMessageSnapshot(newest as unknown as Record<string, unknown>) : null,
  };
}

const close = (a: number, b: number) => Math.abs(a - b) < 1e-9;

describe('cost/message-ledger: assistant messages summed off the liveness path', () => {
  it('reads a session whole once, in pages from the newest (limit, then the before cursor each page named)', async () => {
    const t = new PagedTranscripts();
    for (let i = 0; i < 15; i++) t.turn('ses_a', 2); // 45 messages, 30 assistant
    const c = backend(t);
    const ledger = new MessageLedger({ pageLimit: 20 });
    const s = sample(t, 'ses_a');
    const report = await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(report.pages, 3);
    assert.deepEqual(
      c.calls.map((x) => x.limit),
      [20, 20, 20],
    );
    assert.equal(c.calls[0].before, null);
    assert.ok(c.calls[1].before && c.calls[2].before && c.calls[1].before !== c.calls[2].before);
    const truth = t.sum('ses_a');
    assert.equal(s.session.costPending, false);
    assert.ok(close(s.session.cost!.usd, truth.usd));
    assert.equal(s.session.cost!.tokens.input, truth.input);
    assert.equal(s.session.cost!.tokens.output, truth.output);
    assert.equal(s.session.cost!.messages, 30);

    // Not moved: no request at all.
    c.calls.length = 0;
    const again = sample(t, 'ses_a');
    assert.equal((await ledger.update(c, '/w', { samples: [again], listed: ['ses_a'] })).pages, 0);
    assert.equal(c.calls.length, 0);
    assert.equal(again.session.cost!.messages, 30);
  });

  it('after a move reads only what is newer than the last message counted (small first page)', async () => {
    const t = new PagedTranscripts();
    for (let i = 0; i < 30; i++) t.turn('ses_a', 1);
    const c = backend(t);
    const ledger = new MessageLedger({ pageLimit: 20, movedLimit: 4 });
    await ledger.update(c, '/w', { samples: [sample(t, 'ses_a')], listed: ['ses_a'] });
    c.calls.length = 0;
    t.turn('ses_a', 1, 0.5); // two new messages
    const s = sample(t, 'ses_a');
    const report = await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(report.pages, 1, JSON.stringify(c.calls));
    assert.deepEqual(c.calls, [{ session: 'ses_a', limit: 4, before: null }]);
    assert.ok(close(s.session.cost!.usd, t.sum('ses_a').usd));
    assert.equal(s.session.cost!.messages, 31);

    // Many new messages: pages double (4, 8, 16, 20) until the last one counted is reached.
    c.calls.length = 0;
    for (let i = 0; i < 20; i++) t.turn('ses_a', 1);
    const s2 = sample(t, 'ses_a');
    await ledger.update(c, '/w', { samples: [s2], listed: ['ses_a'] });
    assert.deepEqual(
      c.calls.map((x) => x.limit),
      [4, 8, 16, 20],
    );
    assert.ok(close(s2.session.cost!.usd, t.sum('ses_a').usd));
    assert.equal(s2.session.cost!.messages, 51);
  });

  it('a message still being written counts as read, and again (not twice) once it finished', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_a', 1);
    t.sessions.get('ses_a')!.push(user(msgId(2)), assistant(msgId(3), 0.01, 100, 0, true));
    const c = backend(t);
    const ledger = new MessageLedger();
    const s = sample(t, 'ses_a');
    await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.ok(close(s.session.cost!.usd, 0.011));
    assert.equal(s.session.cost!.messages, 2);
    // It finished with its final figures: same id, a completion time: a move.
    t.sessions.get('ses_a')![3] = assistant(msgId(3), 0.02, 200, 50);
    const s2 = sample(t, 'ses_a');
    await ledger.update(c, '/w', { samples: [s2], listed: ['ses_a'] });
    assert.ok(close(s2.session.cost!.usd, 0.021), String(s2.session.cost!.usd));
    assert.equal(s2.session.cost!.tokens.input, 210);
    assert.equal(s2.session.cost!.messages, 2);
    // A later turn: the finished one is not counted twice.
    t.turn('ses_a', 1);
    const s3 = sample(t, 'ses_a');
    await ledger.update(c, '/w', { samples: [s3], listed: ['ses_a'] });
    assert.ok(close(s3.session.cost!.usd, t.sum('ses_a').usd));
    assert.equal(s3.session.cost!.messages, 3);
  });

  it('a running message with no figures yet (the /api engine writes them at the end) counts as zero, never leaves the cost unknown', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_a', 1);
    const runningMessage = assistant(msgId(3), 0, 0, 0, true);
    delete runningMessage.info.cost;
    delete runningMessage.info.tokens;
    t.sessions.get('ses_a')!.push(user(msgId(2)), runningMessage);
    const c = backend(t);
    const ledger = new MessageLedger();
    const s = sample(t, 'ses_a');
    await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.ok(s.session.cost, 'the cost of the finished messages, not unknown');
    assert.ok(close(s.session.cost.usd, 0.001));
    assert.equal(s.session.cost.messages, 2);
    // It finished with its figures: counted once.
    t.sessions.get('ses_a')![3] = assistant(msgId(3), 0.02, 200, 50);
    const s2 = sample(t, 'ses_a');
    await ledger.update(c, '/w', { samples: [s2], listed: ['ses_a'] });
    assert.ok(close(s2.session.cost!.usd, 0.021), String(s2.session.cost!.usd));
    assert.equal(s2.session.cost!.messages, 2);
  });

  it('a finished message without figures leaves the cost unreported (null), never a partial sum', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_a', 1);
    const bare = assistant(msgId(3), 0, 0, 0);
    delete bare.info.cost;
    delete bare.info.tokens;
    t.sessions.get('ses_a')!.push(user(msgId(2)), bare);
    const s = sample(t, 'ses_a');
    await new MessageLedger().update(backend(t), '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(s.session.costPending, false);
    assert.equal(s.session.cost, null);
  });

  it('bounded per round: a page budget and a small concurrency; 100 new sessions are counted over rounds, pending (never 0) meanwhile', async () => {
    const t = new PagedTranscripts();
    const ids = Array.from({ length: 100 }, (_, i) => `ses_${String(i).padStart(3, '0')}`);
    for (const id of ids) for (let i = 0; i < 15; i++) t.turn(id, 1); // 30 messages: 2 pages each
    const c = backend(t);
    const ledger = new MessageLedger({ pagesPerRound: 25, concurrency: 3, pageLimit: 20 });
    let rounds = 0;
    for (;;) {
      rounds++;
      c.calls.length = 0;
      const samples = ids.map((id) => sample(t, id));
      const report = await ledger.update(c, '/w', { samples, listed: ids });
      assert.ok(report.pages <= 25 && c.calls.length === report.pages, `round ${rounds}: ${report.pages} pages`);
      for (const s of samples) {
        if (s.session.costPending) assert.equal(s.session.cost, null, 'a session not counted shows no figure');
        else assert.ok(close(s.session.cost!.usd, t.sum(s.session.id).usd));
      }
      if (samples.every((s) => !s.session.costPending)) break;
      assert.ok(report.deferred > 0);
      assert.ok(rounds < 20, 'every session counted within 200 pages / 25 per round');
    }
    assert.equal(rounds, 8); // 200 pages at 25 per round
    assert.ok(c.maxInFlight() <= 3, `at most 3 pages at once (saw ${c.maxInFlight()})`);
  });

  it('sessions that moved are read before new ones when the budget is short', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_old', 1);
    const c = backend(t);
    const ledger = new MessageLedger({ pagesPerRound: 1 });
    await ledger.update(c, '/w', { samples: [sample(t, 'ses_old')], listed: ['ses_old'] });
    t.turn('ses_old', 1);
    for (let i = 0; i < 5; i++) t.turn(`ses_new${i}`, 1);
    const ids = ['ses_new0', 'ses_new1', 'ses_new2', 'ses_new3', 'ses_new4', 'ses_old'];
    c.calls.length = 0;
    const samples = ids.map((id) => sample(t, id, null, 100));
    const report = await ledger.update(c, '/w', { samples, listed: ids });
    assert.deepEqual(
      c.calls.map((x) => x.session),
      ['ses_old'],
    );
    assert.equal(report.deferred, 5);
    assert.equal(samples[5].session.cost!.messages, 2);
  });

  it('keeps the totals the list carries (stock opencode) and adds the number of messages once counted', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_a', 3);
    const listCost: SessionCost = {
      usd: 0.5,
      tokens: { input: 1, output: 2, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
      messages: null,
    };
    const ledger = new MessageLedger({ pagesPerRound: 1 });
    const blocked = new MessageLedger({ pagesPerRound: 1 });
    const c = backend(t);
    const s = sample(t, 'ses_a', listCost);
    await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.deepEqual(s.session.cost, { ...listCost, messages: 3 });
    // A session whose first read did not fit the round: its totals stand, its count is not known yet.
    t.turn('ses_b', 30);
    const other = sample(t, 'ses_b', listCost);
    await blocked.update(c, '/w', { samples: [other], listed: ['ses_b'] });
    assert.equal(other.session.costPending, true);
    assert.deepEqual(other.session.cost, listCost);
  });

  it('a sub-agent counts on its own row and toward its parent, from the sums', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_parent', 2, 0.01);
    t.turn('ses_child', 3, 0.1);
    const c = backend(t);
    const ledger = new MessageLedger();
    const parent = sample(t, 'ses_parent');
    const child = sample(t, 'ses_child');
    await ledger.update(c, '/w', { samples: [parent, child], listed: ['ses_parent', 'ses_child'] });
    const rolled = rollUpCosts([
      { id: 'ses_parent', parentId: null, cost: parent.session.cost!, provider: 'local' },
      { id: 'ses_child', parentId: 'ses_parent', cost: child.session.cost!, provider: 'local' },
    ]);
    assert.ok(close(rolled.get('ses_parent')!.usd, 0.32));
    assert.equal(rolled.get('ses_parent')!.messages, 5);
    assert.ok(close(rolled.get('ses_child')!.usd, 0.3));
  });

  it('a malformed page is a clear warning, never a failed round; the session stays pending; retried when it moves', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_a', 1);
    t.sessions.get('ses_a')![0] = { info: { id: msgId(0), role: 7 as unknown as string }, parts: [] };
    const c = backend(t);
    const ledger = new MessageLedger();
    const s = sample(t, 'ses_a');
    const report = await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(report.warnings.length, 1);
    assert.match(
      report.warnings[0],
      /cost of session ses_a not summed: GET \/session\/\{id\}\/message \(page\).*message 0 info\.role is not a string/,
    );
    assert.equal(s.session.costPending, true);
    assert.equal(s.session.cost, null);
    c.calls.length = 0;
    await ledger.update(c, '/w', { samples: [sample(t, 'ses_a')], listed: ['ses_a'] });
    assert.equal(c.calls.length, 0, 'not read again until it moves');
    t.turn('ses_a', 1);
    const moved = await ledger.update(c, '/w', { samples: [sample(t, 'ses_a')], listed: ['ses_a'] });
    assert.equal(c.calls.length, 1, 'read again once it moved');
    assert.equal(moved.warnings.length, 1);
  });

  it('a backend that ignores before (the same page again) is a clear warning, not a loop', async () => {
    const t = new PagedTranscripts();
    for (let i = 0; i < 20; i++) t.turn('ses_a', 1);
    const c = backend(t);
    const inner = c.messagePage!.bind(c);
    c.messagePage = (d, id, page, o) => inner(d, id, { limit: page.limit }, o);
    const ledger = new MessageLedger();
    const s = sample(t, 'ses_a');
    const report = await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(report.pages, 2);
    assert.match(report.warnings[0], /not older than the one before it .*does not page with before/);
    assert.equal(s.session.costPending, true);
  });

  it('an assistant message without figures makes the sum "not reported" (null), never 0', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_a', 1);
    delete t.sessions.get('ses_a')![1].info.tokens;
    const ledger = new MessageLedger();
    const s = sample(t, 'ses_a');
    await ledger.update(backend(t), '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(s.session.costPending, false);
    assert.equal(s.session.cost, null);
  });

  it('a page over the body cap is read again with half the messages', async () => {
    const t = new PagedTranscripts();
    for (let i = 0; i < 10; i++) t.turn('ses_a', 1);
    const c = backend(t);
    const inner = c.messagePage!.bind(c);
    c.messagePage = async (d, id, page, o) => {
      if (page.limit > 5)
        throw new BackendError({
          code: 'too-large',
          operation: 'GET /session/{id}/message (page)',
          baseUrl: 'http://x/',
        });
      return inner(d, id, page, o);
    };
    const ledger = new MessageLedger({ pageLimit: 20 });
    const s = sample(t, 'ses_a');
    await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(s.session.cost!.messages, 10);
    assert.ok(close(s.session.cost!.usd, t.sum('ses_a').usd));
  });

  it('reads nothing on a backend whose messages carry no cost, nor for a session without messages; forgets unlisted sessions', async () => {
    const t = new PagedTranscripts();
    t.turn('ses_a', 1);
    const spec = backend(t, false);
    const s = sample(t, 'ses_a');
    const ledger = new MessageLedger();
    await ledger.update(spec, '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(spec.calls.length, 0);
    assert.equal(s.session.cost, null);
    assert.equal(s.session.costPending, undefined);

    t.sessions.set('ses_empty', []);
    const c = backend(t);
    const empty = sample(t, 'ses_empty');
    await ledger.update(c, '/w', { samples: [empty, sample(t, 'ses_a')], listed: ['ses_empty', 'ses_a'] });
    assert.deepEqual(
      c.calls.map((x) => x.session),
      ['ses_a'],
    );
    assert.equal(empty.session.cost!.messages, 0);
    assert.equal(ledger.size, 2);
    await ledger.update(c, '/w', { samples: [], listed: ['ses_a'] });
    assert.equal(ledger.size, 1);
  });

  it('a time budget per round: no page starts after it and the deadline of each page ends by it', async () => {
    const t = new PagedTranscripts();
    const ids = Array.from({ length: 10 }, (_, i) => `ses_${i}`);
    for (const id of ids) t.turn(id, 1);
    const c = backend(t);
    let clock = 0;
    const deadlines: number[] = [];
    const inner = c.messagePage!.bind(c);
    c.messagePage = async (d, id, page, o) => {
      deadlines.push(o?.timeoutMs ?? Infinity);
      clock += 3_000; // every page takes 3 s
      return inner(d, id, page, o);
    };
    const ledger = new MessageLedger({ concurrency: 1, timeBudgetMs: 10_000, now: () => clock });
    const samples = ids.map((id) => sample(t, id));
    const report = await ledger.update(c, '/w', { samples, listed: ids });
    assert.equal(report.pages, 4, 'pages start at 0, 3, 6 and 9 s');
    assert.deepEqual(deadlines, [10_000, 7_000, 4_000, 1_000]);
    assert.equal(report.deferred, 6);
    assert.equal(samples.filter((s) => s.session.costPending).length, 6);
  });

  it('a timeout is read again next round from the same page; a refusal waits for a move', async () => {
    const t = new PagedTranscripts();
    for (let i = 0; i < 20; i++) t.turn('ses_a', 1);
    const c = backend(t);
    const inner = c.messagePage!.bind(c);
    let fail: 'timeout' | 'rejected' | null = null;
    c.messagePage = async (d, id, page, o) => {
      if (page.before && fail)
        throw new BackendError({ code: fail, operation: 'GET /session/{id}/message (page)', baseUrl: 'http://x/' });
      return inner(d, id, page, o);
    };
    const ledger = new MessageLedger();
    fail = 'timeout';
    const r1 = await ledger.update(c, '/w', { samples: [sample(t, 'ses_a')], listed: ['ses_a'] });
    assert.match(r1.warnings[0], /cost of session ses_a not summed: .*did not answer in time/);
    fail = null;
    c.calls.length = 0;
    const s = sample(t, 'ses_a');
    await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'] });
    assert.equal(c.calls.length, 1, 'the second page only');
    assert.ok(c.calls[0].before);
    assert.equal(s.session.cost!.messages, 20);

    const other = new MessageLedger();
    fail = 'rejected';
    await other.update(c, '/w', { samples: [sample(t, 'ses_a')], listed: ['ses_a'] });
    c.calls.length = 0;
    await other.update(c, '/w', { samples: [sample(t, 'ses_a')], listed: ['ses_a'] });
    assert.equal(c.calls.length, 0, 'not until it moves');
  });
});

describe('cost/message-ledger: counting from the event stream where the list carries the totals', () => {
  const listCost: SessionCost = {
    usd: 0.5,
    tokens: { input: 1, output: 2, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
    messages: null,
  };

  /** Transcripts whose every appended message the counter hears of, as the event stream tells it. */
  function announcing(counter: ActivityCounter, quiet: () => boolean = () => false) {
    const t = new PagedTranscripts();
    t.appended.add((sessionID, m) => {
      if (quiet()) return;
      const e = toBackendEvent(JSON.stringify({ type: 'message.updated', properties: { sessionID, info: m.info } }));
      counter.onEvent(e!);
    });
    return t;
  }

  it('message.updated carries the message: id, role, finished, cost and tokens; an unreadable one none', () => {
    const e = toBackendEvent(
      JSON.stringify({
        type: 'message.updated',
        properties: { sessionID: 'ses_a', info: assistant('msg_1', 0.25, 10, 5).info },
      }),
    );
    assert.equal(e?.message?.id, 'msg_1');
    assert.equal(e?.message?.assistant, true);
    assert.equal(e?.message?.final, true);
    assert.equal(e?.message?.cost?.usd, 0.25);
    const bad = toBackendEvent(JSON.stringify({ type: 'message.updated', properties: { info: { id: 7 } } }));
    assert.equal(bad?.message, undefined);
  });

  it('a moved session is counted from the announcements, without a read; a message being written counts once', async () => {
    const counter = new ActivityCounter();
    counter.onStreamState('open');
    const t = announcing(counter);
    t.turn('ses_a', 2);
    const ledger = new MessageLedger();
    const c = backend(t);
    const round = async () => {
      const s = sample(t, 'ses_a', listCost);
      const r = await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'], announced: counter });
      return { s, r };
    };
    assert.equal((await round()).r.pages, 1, 'first sight: read once');
    t.turn('ses_a', 3);
    const moved = await round();
    assert.deepEqual([moved.r.pages, moved.r.announced], [0, 1]);
    assert.equal(moved.s.session.cost?.messages, 5);
    assert.deepEqual(counter.announcedAfter('ses_a', null), [], 'the counted announcements are settled');
    // A message still being written counts once, and once more never when it finishes.
    const list = t.sessions.get('ses_a')!;
    const tell = (m: ReturnType<typeof assistant>) =>
      counter.onEvent(
        toBackendEvent(JSON.stringify({ type: 'message.updated', properties: { sessionID: 'ses_a', info: m.info } }))!,
      );
    const open = assistant(msgId(list.length), 0.1, 1, 1, true);
    list.push(open);
    tell(open);
    assert.deepEqual([(await round()).r.pages, (await round()).s.session.cost?.messages], [0, 6]);
    const done = assistant(open.info.id, 0.2, 2, 2);
    list[list.length - 1] = done;
    tell(done);
    const finished = await round();
    assert.deepEqual([finished.r.pages, finished.r.announced, finished.s.session.cost?.messages], [0, 1, 6]);
  });

  it('reads pages when the list has no totals, when the stream broke off, or when the newest message was not announced', async () => {
    const counter = new ActivityCounter();
    let quiet = false;
    counter.onStreamState('open');
    const t = announcing(counter, () => quiet);
    t.turn('ses_a', 1);
    const ledger = new MessageLedger();
    const c = backend(t);
    const round = async (cost: SessionCost | null = listCost) => {
      const s = sample(t, 'ses_a', cost);
      const r = await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'], announced: counter });
      return { s, r };
    };
    await round();
    t.turn('ses_a', 1);
    assert.equal((await round(null)).r.pages, 1, 'no totals: the figures come from the pages');
    t.turn('ses_a', 1);
    counter.onStreamState('closed');
    counter.onStreamState('open');
    const broken = await round();
    assert.equal(broken.r.pages, 1, 'the stream was not open throughout');
    assert.equal(broken.s.session.cost?.messages, 3);
    quiet = true;
    t.turn('ses_a', 1);
    const unheard = await round();
    assert.equal(unheard.r.pages, 1, 'the newest message was not announced');
    assert.equal(unheard.s.session.cost?.messages, 4);
    quiet = false;
    t.turn('ses_a', 1);
    const again = await round();
    assert.deepEqual([again.r.pages, again.s.session.cost?.messages], [0, 5]);
  });

  it('announcements nobody settles are bounded: past the cap they are dropped and the session is read again', async () => {
    const counter = new ActivityCounter();
    counter.onStreamState('open');
    const t = announcing(counter);
    t.turn('ses_a', 1);
    const ledger = new MessageLedger({ pagesPerRound: 1_000 });
    const c = backend(t);
    const round = async () => {
      const s = sample(t, 'ses_a', listCost);
      const r = await ledger.update(c, '/w', { samples: [s], listed: ['ses_a'], announced: counter });
      return { s, r };
    };
    await round();
    for (let k = 0; k <= MAX_ANNOUNCED_PER_SESSION; k++) t.turn('ses_a', 1);
    assert.equal(counter.continuity('ses_a'), null, 'the session lost announcements');
    const r = await round();
    assert.ok(r.r.pages >= 1);
    assert.equal(r.s.session.cost?.messages, t.sum('ses_a').messages);
    t.turn('ses_a', 1);
    assert.deepEqual([(await round()).r.pages], [0], 'trusted again after the read');
  });
});
