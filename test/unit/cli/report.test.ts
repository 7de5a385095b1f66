import assert from 'node:assert/strict';
import { runReport } from '../../../src/cli/report';

async function run(argv: string[], stdin = '') {
  let stdout = '';
  let stderr = '';
  const code = await runReport(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    readStdin: async () => stdin,
  });
  return { code, stdout, stderr };
}

describe('session-ops report', () => {
  it('parse: one line on stdin -> JSON; exit 1 when it is not a report', async () => {
    const ok = await run(['parse'], 'ticket=PROJ-12 label=Kind/Bug status=done pr=#34 summary="CRLF fixed"\n');
    assert.equal(ok.code, 0);
    assert.deepEqual(JSON.parse(ok.stdout), {
      ticket: 'PROJ-12',
      label: 'Kind/Bug',
      status: 'done',
      pr: '#34',
      summary: 'CRLF fixed',
      reason: null,
    });
    const bad = await run(['parse'], 'status=done but no ticket\n');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /no completion report/);
  });
  it('format: one line on stdout that parse reads back', async () => {
    const f = await run([
      'format',
      '--ticket',
      'PROJ-13',
      '--status',
      'blocked',
      '--reason',
      'quota-exhausted',
      '--summary',
      'quota exhausted on anthropic',
      '--pr',
      '#35',
    ]);
    assert.equal(f.code, 0);
    assert.equal(
      f.stdout,
      'ticket=PROJ-13 status=blocked pr=#35 reason=quota-exhausted summary="quota exhausted on anthropic"\n',
    );
    const back = await run(['parse'], f.stdout);
    assert.equal(JSON.parse(back.stdout).reason, 'quota-exhausted');
  });
  it('format refuses reason=quota-exhausted unless blocked, and a report without a summary (exit 2)', async () => {
    const quota = await run([
      'format',
      '--ticket',
      'T',
      '--status',
      'done',
      '--reason',
      'quota-exhausted',
      '--summary',
      'x',
    ]);
    assert.equal(quota.code, 2);
    assert.match(quota.stderr, /reason=quota-exhausted needs status=blocked/);
    assert.equal(quota.stdout, '');
    const bare = await run(['format', '--ticket', 'T', '--status', 'done']);
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /needs a summary/);
  });
  it('parse: a line meant as a report that does not parse is printed as malformed, exit 1', async () => {
    const r = await run(['parse'], 'ticket=T-1 status=finished summary=x\n');
    assert.equal(r.code, 1);
    assert.deepEqual(JSON.parse(r.stdout), {
      malformed: true,
      raw: 'ticket=T-1 status=finished summary=x',
      problem: 'status "finished" is not done, blocked or handoff',
      ticket: 'T-1',
      label: null,
      status: 'finished',
      pr: null,
      summary: 'x',
      reason: null,
    });
    assert.match(r.stderr, /malformed completion report: status "finished"/);
  });
  it('parse (issue 28): no summary, a reason on done, a key given twice are malformed, exit 1', async () => {
    for (const [line, problem] of [
      ['ticket=T-1 status=done pr=#5', /no summary/],
      ['ticket=T-1 status=done reason=quota-exhausted summary=x', /reason=quota-exhausted on status done/],
      ['ticket=T-1 status=done status=blocked summary=x', /status= given more than once/],
    ] as const) {
      const r = await run(['parse'], `${line}\n`);
      assert.equal(r.code, 1, line);
      const doc = JSON.parse(r.stdout);
      assert.equal(doc.malformed, true, line);
      assert.equal(doc.raw, line);
      assert.match(doc.problem, problem);
    }
  });
  it('format (issue 28) refuses any reason unless blocked (exit 2)', async () => {
    const r = await run(['format', '--ticket', 'T', '--status', 'handoff', '--reason', 'other', '--summary', 'x']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /reason=other needs status=blocked/);
    assert.equal(r.stdout, '');
  });
  it('usage errors exit 2; --help exits 0 with an example', async () => {
    assert.equal((await run(['format', '--status', 'done'])).code, 2);
    assert.equal((await run(['format', '--ticket', 'T', '--status', 'finished'])).code, 2);
    assert.equal((await run(['frobnicate'])).code, 2);
    assert.equal((await run([])).code, 2);
    const h = await run(['--help']);
    assert.equal(h.code, 0);
    assert.match(h.stdout, /Example:/);
  });
});
