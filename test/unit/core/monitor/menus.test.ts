// Evaluates every `when` clause of package.json's tree-item menus against the contextValue each
// kind of row produces, so a menu entry shows exactly where intended (and `idle` can never match
// inside `verdict-idle`, nor `backend` inside `backend-error`).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  backendContextValue,
  contextValueOf,
  parseContextValue,
  sessionContextValue,
} from '../../../../src/core/monitor/context-values';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { evaluateWhen } from '../../../support/when-clause';
import { sessionRow } from '../../../support/session-rows';

const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8'));
type MenuItem = { command: string; when?: string; group?: string };
const itemMenu: MenuItem[] = pkg.contributes.menus['view/item/context'];

/** A healthy generating session unless told otherwise. */
function row(over: Partial<SessionRow> = {}): SessionRow {
  const latest = {
    at: 0,
    state: 'generating' as const,
    stepCount: null,
    lastStepAt: null,
    newestId: null,
    newestRole: null,
  };
  return sessionRow({
    badge: 'healthy',
    verdict: 'healthy',
    action: 'leave-alone',
    state: 'generating',
    evidence: { earlier: null, latest },
    ...over,
  });
}

/** The commands a menu shows for an item: [inline, context menu]. */
function shown(viewItem: string, view = 'sessionOps.sessions'): { inline: string[]; menu: string[] } {
  const ctx = { view, viewItem };
  const hits = itemMenu.filter((m) => !m.when || evaluateWhen(m.when, ctx));
  return {
    inline: hits
      .filter((m) => m.group === 'inline')
      .map((m) => m.command)
      .sort(),
    menu: hits
      .filter((m) => m.group !== 'inline')
      .map((m) => m.command)
      .sort(),
  };
}

const wall = { provider: 'local', reason: 'rate_limit', category: 'rate-limit' as const, resetAt: null };
const report = { ticket: 'T-1', label: null, status: 'done' as const, pr: null, summary: null, reason: null };

describe('core/monitor/context-values and package.json menus', () => {
  it('builds namespaced values with + flags and rejects malformed flags', () => {
    assert.equal(contextValueOf('session', ['a', null, 'b-c']), 'sessionOps:session+a+b-c');
    assert.throws(() => contextValueOf('session', ['a+b']), /invalid context flag/);
    assert.deepEqual(parseContextValue('sessionOps:backend+error'), { kind: 'backend', flags: ['error'] });
    assert.equal(backendContextValue({ error: false, insecure: false }), 'sessionOps:backend');
  });

  it('every when clause parses', () => {
    for (const m of [...itemMenu, ...pkg.contributes.menus['view/title'], ...pkg.contributes.menus.commandPalette]) {
      if (m.when) evaluateWhen(m.when, {});
    }
  });

  it('a healthy generating session offers Abort and Copy only', () => {
    assert.deepEqual(shown(sessionContextValue(row())), {
      inline: [],
      menu: ['sessionOps.abort', 'sessionOps.copySessionId'],
    });
  });

  it('a hung session recommends Abort and Wake inline', () => {
    const s = shown(sessionContextValue(row({ badge: 'hung', verdict: 'hung', action: 'abort-and-wake' })));
    assert.deepEqual(s.inline, ['sessionOps.abortAndWake']);
    assert.deepEqual(s.menu, [
      'sessionOps.abort',
      'sessionOps.abortAndWake',
      'sessionOps.copySessionId',
      'sessionOps.wakeWithPrompt',
    ]);
  });

  it('an idle unfinished session recommends Wake; Dispatch and Wake with Prompt in the menu; no Abort', () => {
    const s = shown(sessionContextValue(row({ badge: 'idle', verdict: 'idle', action: 'wake', state: 'idle' })));
    assert.deepEqual(s.inline, ['sessionOps.wake']);
    assert.deepEqual(s.menu, [
      'sessionOps.copySessionId',
      'sessionOps.dispatch',
      'sessionOps.wake',
      'sessionOps.wakeWithPrompt',
    ]);
  });

  it('a quota wall recommends Recover on Another Provider', () => {
    const s = shown(
      sessionContextValue(
        row({ badge: 'quota-wall', verdict: 'idle', action: 'recover', state: 'idle', quotaWall: wall }),
      ),
    );
    assert.deepEqual(s.inline, ['sessionOps.recover']);
    assert.ok(s.menu.includes('sessionOps.recover') && s.menu.includes('sessionOps.wake'));
  });

  it('a report kept after a newer message still offers Open Completion Report', () => {
    const s = shown(
      sessionContextValue(row({ badge: 'idle', verdict: 'idle', action: 'wake', state: 'idle' }), { keptReport: true }),
    );
    assert.ok(s.menu.includes('sessionOps.openReport') && s.inline.includes('sessionOps.openReport'));
  });

  it('a report shows Open Completion Report inline and in the menu', () => {
    const s = shown(
      sessionContextValue(row({ badge: 'report-done', verdict: 'idle', action: 'harvest', state: 'idle', report })),
    );
    assert.deepEqual(s.inline, ['sessionOps.openReport']);
    assert.ok(s.menu.includes('sessionOps.openReport'));
  });

  it('a session waiting for a permission offers the answers and never Abort or Abort and Wake', () => {
    const s = shown(
      sessionContextValue(
        row({
          verdict: 'waiting',
          action: 'answer',
          waiting: {
            kind: 'permission',
            title: 'bash',
            requestID: 'per_1',
            detail: { kind: 'permission', tool: 'bash', patterns: ['ls'], always: [] },
          },
        }),
      ),
    );
    assert.deepEqual(s.inline, ['sessionOps.allowOnce']);
    assert.deepEqual(s.menu, [
      'sessionOps.allowAlways',
      'sessionOps.allowOnce',
      'sessionOps.copySessionId',
      'sessionOps.rejectPermission',
    ]);
  });

  it('a session waiting for a question offers Answer...', () => {
    const s = shown(
      sessionContextValue(
        row({
          verdict: 'waiting',
          action: 'answer',
          waiting: {
            kind: 'question',
            title: 'Which?',
            requestID: 'que_1',
            detail: { kind: 'question', questions: [] },
          },
        }),
      ),
    );
    assert.deepEqual(s.inline, ['sessionOps.answerQuestion']);
    assert.ok(!s.menu.includes('sessionOps.abort'));
  });

  it('while an action runs on a session nothing else acts on it; a scheduled retry can be cancelled', () => {
    const busy = shown(
      sessionContextValue(row({ badge: 'hung', verdict: 'hung', action: 'abort-and-wake' }), { busy: true }),
    );
    assert.deepEqual(busy, { inline: [], menu: ['sessionOps.copySessionId'] });
    const scheduled = shown(
      sessionContextValue(
        row({ badge: 'quota-wall', verdict: 'idle', action: 'wait-for-reset', state: 'idle', quotaWall: wall }),
        { scheduled: true },
      ),
    );
    assert.deepEqual(scheduled.inline, ['sessionOps.cancelScheduledRetry']);
  });

  it('backend items: password entries on every backend, Retry only on an erroring one; nothing leaks into other views', () => {
    assert.deepEqual(shown(backendContextValue({ error: false, insecure: true })), {
      inline: [],
      menu: ['sessionOps.clearPassword', 'sessionOps.setPassword'],
    });
    assert.deepEqual(shown(backendContextValue({ error: true, insecure: false })), {
      inline: ['sessionOps.retryBackend'],
      menu: ['sessionOps.clearPassword', 'sessionOps.retryBackend', 'sessionOps.setPassword'],
    });
    assert.deepEqual(shown(contextValueOf('backendError', [])), {
      inline: ['sessionOps.retryBackend'],
      menu: ['sessionOps.retryBackend'],
    });
    assert.deepEqual(shown(sessionContextValue(row()), 'sessionOps.providers'), { inline: [], menu: [] });
    assert.deepEqual(shown(contextValueOf('directory', [])), { inline: [], menu: [] });
  });
});
