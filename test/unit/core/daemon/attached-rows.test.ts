// What an attached daemon's rows offer (menus by contextValue) and who acts automatically.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { whoActs } from '../../../../src/core/daemon/who-acts';
import { backendContextValue, sessionContextValue } from '../../../../src/core/monitor/context-values';
import { sessionRow } from '../../../support/session-rows';
import { evaluateWhen } from '../../../support/when-clause';

const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8'));
const itemMenu: Array<{ command: string; when?: string }> = pkg.contributes.menus['view/item/context'];
const menusOf = (viewItem: string) =>
  itemMenu
    .filter((m) => !m.when || evaluateWhen(m.when, { view: 'sessionOps.sessions', viewItem }))
    .map((m) => m.command)
    .filter((c, i, all) => all.indexOf(c) === i)
    .sort();

describe('core/daemon/who-acts (the status bar says who acts automatically)', () => {
  const off = { abortHung: false, wakeIdle: false, recoverQuotaWalls: false, abortOverBudget: false };
  it('local, the daemon, or both, each for its own fleet', () => {
    assert.equal(whoActs({ switches: off, sampledBackends: 1 }, []), 'Automatic: off in this window');
    assert.equal(
      whoActs({ switches: { ...off, abortHung: true }, sampledBackends: 0 }, [{ name: 'ops' }]),
      'Automatic: daemon ops (its fleet)',
    );
    assert.equal(
      whoActs({ switches: { ...off, wakeIdle: true }, sampledBackends: 2 }, [{ name: 'ops' }]),
      'Automatic: local (this window: wake idle); daemon ops (its fleet)',
    );
  });
});

describe('an attached row offers the acts the daemon takes', () => {
  it('an act token: Wake, Wake with Prompt... and Dispatch... as on a sampled row (the daemon sends them)', () => {
    const idle = sessionRow({ state: 'idle', verdict: 'idle', action: 'wake' });
    const shown = menusOf(sessionContextValue(idle, { attached: true }));
    assert.deepEqual(shown, menusOf(sessionContextValue(idle)));
    for (const c of ['sessionOps.wake', 'sessionOps.wakeWithPrompt', 'sessionOps.dispatch'])
      assert.ok(shown.includes(c), c);
    const hung = sessionRow({ state: 'generating', verdict: 'hung', action: 'abort-and-wake' });
    assert.ok(menusOf(sessionContextValue(hung, { attached: true })).includes('sessionOps.wakeWithPrompt'));
  });

  it('a read token: no act menu at all (Copy Session Id only)', () => {
    for (const row of [
      sessionRow({ state: 'idle', verdict: 'idle', action: 'wake' }),
      sessionRow({ state: 'generating', verdict: 'hung', action: 'abort-and-wake' }),
    ])
      assert.deepEqual(menusOf(sessionContextValue(row, { attached: true, readOnly: true })), [
        'sessionOps.copySessionId',
      ]);
  });
});

describe('an attached daemon backend row (contextValue daemonBackend)', () => {
  it('offers Set Daemon Token... (and Retry when in error), never a backend password', () => {
    assert.deepEqual(menusOf(backendContextValue({ error: true, insecure: false, attached: true })), [
      'sessionOps.retryBackend',
      'sessionOps.setDaemonToken',
    ]);
    assert.deepEqual(menusOf(backendContextValue({ error: false, insecure: false, attached: true })), [
      'sessionOps.setDaemonToken',
    ]);
  });
});
