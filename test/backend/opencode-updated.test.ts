// Does stock opencode move a session's `time.updated` (GET /session) with every change of its newest
// message (GET /session/{id}/message?limit=1)? Only then could sampling keep a newest message it
// read while the list entry and the status are unchanged, without reading it again. Polled as the
// sampling step reads, the list then the message: when the message read at poll k+1 differs from
// the one read at poll k, it changed after list read k, so had the change moved `time.updated`, list
// reads k and k+2 would differ. On opencode 1.18.33 they do not: the parts of a running assistant
// message (step-start, a tool part turning running) change while `time.updated` stays, so the
// newest message is read in every sample (one read per session per round) on both dialects. This
// test holds that observation; if it fails, opencode started moving `time.updated` with parts and
// the reuse may be reconsidered.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { waitFor } from './helpers';

/** What a newest message is, in brief: id, finish, completion time, its parts' kinds and states. */
function brief(json: string): string {
  const [m] = JSON.parse(json) as Array<{
    info: { id: string; role: string; finish?: string; time?: { completed?: number } };
    parts: Array<{ type: string; state?: { status?: string }; time?: { end?: number } }>;
  }>;
  if (!m) return 'none';
  const parts = m.parts.map(
    (p) => `${p.type}${p.state?.status ? `:${p.state.status}` : ''}${p.time?.end ? ':end' : ''}`,
  );
  return `${m.info.id.slice(-6)} ${m.info.role} ${m.info.finish ?? '-'} ${m.info.time?.completed ? 'completed' : 'open'} [${parts.join(',')}]`;
}

interface Poll {
  updated: number | null;
  status: string;
  message: string;
}

describe('stock opencode: time.updated and the newest message', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let dir: string;

  before(async function () {
    model = await startScriptedModel();
    oc = await startOpencode({ modelUrl: model.url, apiKey: 'sk-local-updated' });
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-updated-'));
  });
  after(async function () {
    model?.releaseStalls();
    await oc?.stop();
    await model?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const get = async (p: string): Promise<unknown> => {
    const sep = p.includes('?') ? '&' : '?';
    const res = await fetch(`${oc.baseUrl}${p}${sep}directory=${encodeURIComponent(dir)}`);
    assert.equal(res.status, 200, p);
    return res.json();
  };

  async function poll(id: string): Promise<Poll> {
    const [list, status] = (await Promise.all([get('session'), get('session/status')])) as [
      Array<{ id: string; time?: { updated?: number } }>,
      Record<string, { type: string }>,
    ];
    const entry = list.find((s) => s.id === id);
    const newest = (await get(`session/${id}/message?limit=1`)) as unknown[];
    return {
      updated: entry?.time?.updated ?? null,
      status: status[id]?.type ?? 'idle',
      message: JSON.stringify(newest),
    };
  }

  it('the parts of a running message change without moving time.updated (so a newest message is never reused)', async function () {
    this.timeout(120000);
    model.when('[rounds]', { kind: 'tool-loop', command: 'sleep 0.2', rounds: 8, then: 'done '.repeat(30) });
    const id = await launchSession(oc, dir, 'updated', 'work in rounds [rounds]');
    const polls: Poll[] = [];
    const t0 = Date.now();
    // Until the turn has ended and two more polls saw it settled.
    let settled = 0;
    while (settled < 3 && Date.now() - t0 < 60000) {
      polls.push(await poll(id));
      const last = polls[polls.length - 1];
      settled = last.status === 'idle' && /"finish":"stop"/.test(last.message) ? settled + 1 : 0;
    }
    await waitFor('the turn to end', () => settled >= 3);
    const changes: number[] = [];
    const unmoved: string[] = [];
    for (let k = 0; k + 2 < polls.length; k++) {
      if (polls[k + 1].message === polls[k].message) continue;
      changes.push(k);
      if (polls[k + 2].updated === polls[k].updated)
        unmoved.push(
          `poll ${k + 1}: message changed (${brief(polls[k].message)} -> ${brief(polls[k + 1].message)}), time.updated stayed ${polls[k].updated}`,
        );
    }
    if (process.env.UPDATED_REPORT)
      console.log(`      ${polls.length} polls, ${changes.length} message changes, ${unmoved.length} without a move`);
    assert.ok(changes.length >= 6, `only ${changes.length} message changes seen in ${polls.length} polls`);
    assert.ok(unmoved.length > 0, `all ${changes.length} message changes moved time.updated`);
    assert.ok(
      unmoved.every((v) => /tool:|step-/.test(v)),
      unmoved.join('\n'),
    );
  });
});
