// The daemon's budget log line (event `budget`) and gauge, against a fake backend with stock
// opencode 1.18's observed shapes (each listed session carries its own cost): a session whose
// cost reaches 80 % and then 100 % of budget.sessionUsd is logged once at each level, with the
// level, its cost and the budget; session_ops_budget_session_usd carries the budget.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseWatchConfig } from '../../../../src/core/watch/config';
import { WatchDaemon } from '../../../../src/core/watch/daemon';

describe('core/watch/daemon: budget', () => {
  let server: http.Server;
  let url: string;
  let stateDir: string;
  let usd = 0.5;

  before(async () => {
    server = http.createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://x');
      const send = (body: unknown) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (u.pathname === '/session')
        return send([
          {
            id: 'ses_spender',
            title: 'Spends',
            time: { created: 1, updated: 2 },
            cost: usd,
            tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
          },
        ]);
      if (u.pathname === '/session/status') return send({});
      if (u.pathname === '/permission' || u.pathname === '/question') return send([]);
      if (u.pathname === '/session/ses_spender/message')
        return send([
          {
            info: {
              id: 'msg_1',
              role: 'assistant',
              providerID: 'local',
              modelID: 'm1',
              time: { created: 1, completed: 2 },
              cost: usd,
              tokens: { input: 10, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
            },
            parts: [{ type: 'text', text: 'done' }],
          },
        ]);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-daemon-budget-'));
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('logs `budget` once at 80 % and once at 100 % of budget.sessionUsd, and exposes the budget', async () => {
    const parsed = parseWatchConfig(
      `backends:\n  - { name: fleet, baseUrl: "${url}", directories: [/w] }\nbudget: { sessionUsd: 1 }\n`,
    );
    assert.ok(parsed.config, JSON.stringify(parsed.problems));
    const lines: Array<{ level: string; event: string; fields?: Record<string, unknown> }> = [];
    const daemon = new WatchDaemon({
      loaded: { config: parsed.config!, credentials: new Map(), warnings: [] },
      log: (level, event, fields) => lines.push({ level, event, fields }),
      allowShortSpacing: false,
      processMetrics: false,
      env: { SESSION_OPS_STATE_DIR: stateDir },
    });
    const budgetLines = () => lines.filter((l) => l.event === 'budget');
    try {
      await daemon.start();
      await daemon.monitor.refresh();
      assert.ok(
        daemon.monitor.rows().some((r) => r.id === 'ses_spender'),
        'the session was sampled',
      );
      assert.deepEqual(budgetLines(), [], 'under 80 %: nothing');

      usd = 0.85;
      await daemon.monitor.refresh();
      usd = 0.9;
      await daemon.monitor.refresh();
      assert.deepEqual(budgetLines(), [
        {
          level: 'warn',
          event: 'budget',
          fields: { backend: 'fleet', directory: '/w', session: 'ses_spender', level: 80, usd: 0.85, budgetUsd: 1 },
        },
      ]);

      usd = 1.25;
      await daemon.monitor.refresh();
      usd = 1.5;
      await daemon.monitor.refresh();
      assert.deepEqual(
        budgetLines().map((l) => l.fields),
        [
          { backend: 'fleet', directory: '/w', session: 'ses_spender', level: 80, usd: 0.85, budgetUsd: 1 },
          { backend: 'fleet', directory: '/w', session: 'ses_spender', level: 100, usd: 1.25, budgetUsd: 1 },
        ],
        'each level once',
      );
      const metrics = (await daemon.metrics.render(false)).body;
      assert.match(metrics, /^session_ops_budget_session_usd 1$/m);
      assert.match(
        metrics,
        /^session_ops_session_cost_usd\{backend="fleet",directory="\/w",session="ses_spender"\} 1\.5$/m,
      );
    } finally {
      await daemon.stop(0);
    }
  });
});
