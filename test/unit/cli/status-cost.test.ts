// `session-ops status` and cost on a backend that reports none (the spec dialect): null in the
// JSON at both levels, "not reported by this backend" in the table, never 0; --budget-usd then
// marks nobody and exits 0; a --budget-usd that is not above 0 is a usage error.
import { clockReading } from '../../support/manual-clock';
import assert from 'node:assert/strict';
import { runStatus } from '../../../src/cli/status';
import { EXIT } from '../../../src/cli/exit-codes';
import type { StatusDocument } from '../../../src/core/health/status-document';
import { startSpecServer, type SpecServer } from '../../support/spec-server';

const DIR = '/work/cost';

describe('status: cost on a backend that reports none', () => {
  let server: SpecServer;
  let clock = 1_800_000_000_000;
  const io = () => {
    const out = { stdout: '', stderr: '' };
    return {
      out,
      io: {
        stdout: (t: string) => void (out.stdout += t),
        stderr: (t: string) => void (out.stderr += t),
        env: {},
        clock: { ...clockReading(() => clock), sleep: async (ms: number) => void (clock += ms) },
      },
    };
  };

  beforeEach(async () => {
    server = await startSpecServer();
    const d = server.directory(DIR);
    const a = d.addSession({ state: 'idle' });
    d.addMessage(a, { text: 'done for now' });
  });
  afterEach(async () => server.stop());

  it('--json: cost null per session and at the top, overBudget false, exit 0 with a budget', async () => {
    const { out, io: sio } = io();
    const code = await runStatus(['--base-url', server.url, '--directory', DIR, '--json', '--budget-usd', '0.01'], sio);
    assert.equal(code, EXIT.done, out.stderr);
    const doc = JSON.parse(out.stdout) as StatusDocument;
    assert.equal(doc.sessions.length, 1);
    assert.equal(doc.sessions[0].cost, null);
    assert.equal(doc.sessions[0].overBudget, false);
    assert.equal(doc.cost, null);
    assert.equal(doc.budgetUsd, 0.01);
  });

  it('the table says "not reported by this backend", never $0', async () => {
    const { out, io: sio } = io();
    assert.equal(await runStatus(['--base-url', server.url, '--directory', DIR], sio), EXIT.done, out.stderr);
    assert.match(out.stdout, /COST/);
    assert.match(out.stdout, /Cost {6}not reported by this backend/);
    assert.doesNotMatch(out.stdout, /\$0/);
  });

  it('--budget-usd must be above 0', async () => {
    for (const bad of ['0', '-1', 'x']) {
      const { out, io: sio } = io();
      const code = await runStatus(['--base-url', server.url, '--directory', DIR, '--budget-usd', bad], sio);
      assert.equal(code, EXIT.usage, bad);
      assert.match(out.stderr, /--budget-usd must be/);
    }
  });
});
