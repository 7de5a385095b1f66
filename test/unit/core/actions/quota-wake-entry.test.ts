// Issue 28 item 9: a quota-walled session is always woken with the quota-wall prompt (its five
// parts: what happened, what is done, where to resume, the evidence rule, the completion-report
// protocol with the quota self-report clause), from every entry point, or refused with a pointer
// to recover. Against the stateful spec-dialect server.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ActionIo } from '../../../../src/cli/action-io';
import { EXIT } from '../../../../src/cli/exit-codes';
import { runWake } from '../../../../src/cli/wake';
import type { ActionContext } from '../../../../src/core/actions/executor-context';
import { wakeSession } from '../../../../src/core/actions/wake';
import { EVIDENCE_RULE, QUOTA_SELF_REPORT_CLAUSE } from '../../../../src/core/prompt/clauses';
import { quotaWakeDocumentProblem } from '../../../../src/core/prompt/wake-rules';
import { startSpecActions } from '../../../support/spec-actions';
import type { SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';

describe('a quota-walled session is woken only with the quota-wall prompt (issue 28 item 9)', function () {
  let server: SpecServer;
  let ctx: ActionContext;
  let stop: () => Promise<void>;
  let tmp: string;

  beforeEach(async () => {
    ({ server, ctx, stop } = await startSpecActions({ answerMs: 50 }));
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-quota-wake-'));
  });
  afterEach(async () => {
    await stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  function walled(): string {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle', title: 'PROJ-9 parser' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
      info: { providerID: 'anthropic', modelID: 'sonnet' },
    });
    return id;
  }

  it('`wake --compose wake` on a walled session sends the quota-wall prompt with its five parts', async () => {
    const id = walled();
    const out = { stdout: '', stderr: '' };
    const io: Partial<ActionIo> = {
      env: { SESSION_OPS_STATE_DIR: path.join(tmp, 'state') },
      localInventory: [],
      stdout: (t) => (out.stdout += t),
      stderr: (t) => (out.stderr += t),
    };
    const code = await runWake([id, '--base-url', server.url, '--directory', DIR, '--compose', 'wake', '--json'], io);
    assert.equal(code, EXIT.done, out.stderr);
    assert.equal(server.prompts.length, 1);
    const text = server.prompts[0].payload.parts[0].text;
    assert.equal(quotaWakeDocumentProblem(text), null, text);
    for (const part of [
      'What happened: your previous turn was killed by a usage limit on anthropic',
      'What is done:',
      'Where to resume:',
      EVIDENCE_RULE,
      QUOTA_SELF_REPORT_CLAUSE,
    ])
      assert.ok(text.includes(part), `missing: ${part}`);
    assert.deepEqual(server.prompts[0].payload.model, { providerID: 'openai', modelID: 'gpt-5' });
  });

  it('a plain wake text on a walled session is refused with a pointer to recover; nothing sent', async () => {
    const id = walled();
    const r = await wakeSession(ctx, { sessionId: id, prompt: 'Continue.' });
    assert.equal(r.outcome, 'refused', r.message);
    assert.equal(r.refusal?.code, 'needs-quota-wake');
    assert.match(r.message, /quota wall .*session-ops recover/);
    assert.equal(server.prompts.length, 0);
    assert.equal(r.sent, false);
  });

  it('a composed wake (template wake) reaching a walled session is refused the same way', async () => {
    const id = walled();
    const r = await wakeSession(ctx, {
      sessionId: id,
      prompt: () => ({ ok: true, template: 'wake', text: 'You were woken.\n\nResume with: x' }),
    });
    assert.equal(r.refusal?.code, 'needs-quota-wake');
    assert.equal(server.prompts.length, 0);
  });

  it('quotaWakeDocumentProblem names the missing part', () => {
    assert.match(quotaWakeDocumentProblem('Continue.') ?? '', /what happened/);
  });
});
