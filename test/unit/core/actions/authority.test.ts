import assert from 'node:assert/strict';
import { orchestratorIn, resolveAuthority, ticketIn } from '../../../../src/core/actions/authority';

describe('authority and ticket of the completion-report block', () => {
  it('flags first, then SESSION_OPS_ORCHESTRATOR; ticket from the title, then the newest user message', () => {
    const a = resolveAuthority({
      ticket: 'PROJ-1',
      orchestrator: 'ses_orch1',
      env: { SESSION_OPS_ORCHESTRATOR: 'ses_env' },
    });
    assert.deepEqual(
      [a.orchestrator, a.orchestratorSource, a.ticket, a.ticketSource],
      ['ses_orch1', 'flag', 'PROJ-1', 'flag'],
    );
    const b = resolveAuthority({
      env: { SESSION_OPS_ORCHESTRATOR: 'ses_env' },
      sessionTitle: 'PROJ-42: fix the parser',
    });
    assert.deepEqual(
      [b.orchestrator, b.orchestratorSource, b.ticket, b.ticketSource],
      ['ses_env', 'env', 'PROJ-42', 'title'],
    );
    const c = resolveAuthority({ sessionTitle: 'no ticket here', newestUserText: 'work on ticket=ABC-7 please' });
    assert.deepEqual([c.ticket, c.ticketSource], ['ABC-7', 'message']);
  });
  it('missing values never refuse: the block says they are unknown (no placeholder)', () => {
    const a = resolveAuthority({});
    assert.equal(a.orchestrator, null);
    assert.equal(a.ticket, null);
    assert.equal(a.report.ticket, null);
    assert.equal(a.report.orchestratorSessionId, null);
  });
  it('warns when the newest user message names another orchestrator', () => {
    const a = resolveAuthority({
      orchestrator: 'ses_me1',
      newestUserText: 'Report to orchestrator session ses_other9 when done',
    });
    assert.equal(a.warnings.length, 1);
    assert.match(a.warnings[0], /names orchestrator ses_other9, but this prompt speaks for ses_me1/);
    assert.deepEqual(
      resolveAuthority({ orchestrator: 'ses_me1', newestUserText: 'orchestrator=ses_me1' }).warnings,
      [],
    );
    assert.match(resolveAuthority({ newestUserText: 'orchestrator: ses_x1' }).warnings[0], /names none/);
  });
  it('ticket and orchestrator patterns', () => {
    assert.equal(ticketIn('see #12 and PROJ-3'), 'PROJ-3');
    assert.equal(ticketIn('ticket=#12'), '#12');
    assert.equal(ticketIn('nothing'), null);
    assert.equal(orchestratorIn('the orchestrator is busy'), null);
  });
});
