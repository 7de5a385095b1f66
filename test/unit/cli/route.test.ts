// `session-ops route` (issue 31 item 2): the --json keys, the text, exit 0 / 1 invalid / 2 usage /
// 3 ambiguous, --label repeated, --high-risk, and --model reading the model's variant table from
// the provider listing (GET only; provider options never shown).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { runRoute } from '../../../src/cli/route';
import { runValidate } from '../../../src/cli/validate';
import { EXIT } from '../../../src/cli/exit-codes';
import { startSpecServer, type SpecServer } from '../../support/spec-server';

const complete = readFileSync(path.join(__dirname, '../../fixtures/routing/valid/complete.routing.yaml'), 'utf8');

function capture() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: (t: string) => void (out.stdout += t),
      stderr: (t: string) => void (out.stderr += t),
      env: {},
      cwd: () => '/work/route-test',
    },
  };
}

describe('session-ops route', () => {
  let dir: string;
  let file: string;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'route-'));
    file = path.join(dir, 'routing.yaml');
    writeFileSync(file, complete);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('--json answers exactly the contract keys, in order; preflight items in document order', async () => {
    const { out, io } = capture();
    assert.equal(await runRoute(['--routing', file, '--label', 'Kind/Bug', '--json'], io), EXIT.done, out.stderr);
    const doc = JSON.parse(out.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc), [
      'matched',
      'entry',
      'skip',
      'keepGates',
      'preflight',
      'preflightDropped',
      'effort',
      'variant',
      'notes',
      'reviewRounds',
      'dag',
    ]);
    assert.deepEqual(doc, {
      matched: 'Kind/Bug',
      entry: { skill: 'implement', mode: 'bugfix' },
      skip: ['review-dag'],
      keepGates: ['review-code', 'verify'],
      preflight: [
        {
          id: 'reproduce-first',
          item: 'Reproduce the bug with a failing test before fixing it.',
          evidence: 'retro C12 finding 3',
          addedCycle: 'C12',
        },
        {
          id: 'check-callers',
          item: 'List the callers of the function you change.',
          evidence: 'retro C14 finding 1',
          addedCycle: null,
        },
      ],
      preflightDropped: [],
      effort: 'high',
      variant: null,
      notes: 'Bugs go straight to implementation.',
      reviewRounds: 2,
      dag: null,
    });
  });

  it('the text names each field; no model: the variant is unknown and says so; --high-risk', async () => {
    const { out, io } = capture();
    assert.equal(await runRoute(['--routing', file, '--label', 'Kind/Bug', '--high-risk'], io), EXIT.done);
    assert.equal(
      out.stdout,
      [
        'Route: Kind/Bug',
        'Entry: skill implement, mode bugfix',
        'Skip: review-dag',
        'Keep gates: review-code, verify',
        'Preflight:',
        '  - reproduce-first: Reproduce the bug with a failing test before fixing it. (evidence: retro C12 finding 3; added_cycle C12)',
        '  - check-callers: List the callers of the function you change. (evidence: retro C14 finding 1; no added_cycle)',
        'Effort: high; variant: unknown (no model was given)',
        'Notes: Bugs go straight to implementation.',
        'Review rounds: 3 (review.max_rounds.high_risk)',
        '',
      ].join('\n'),
    );
  });

  it('default and natural-language routing; the DAG blocks of a Kind/Feature ticket (camelCase keys)', async () => {
    const { out, io } = capture();
    assert.equal(await runRoute(['--routing', file, '--label', 'Kind/Feature', '--label', 'team/x', '--json'], io), 0);
    const doc = JSON.parse(out.stdout);
    assert.equal(doc.matched, 'default');
    assert.deepEqual(doc.entry, { skill: null, mode: null });
    assert.deepEqual(Object.keys(doc.dag), ['route', 'taskRoute', 'singleGate', 'reviewDepth']);
    assert.deepEqual(Object.keys(doc.dag.route), [
      'entry',
      'skip',
      'keepGates',
      'preflight',
      'preflightDropped',
      'effort',
      'notes',
    ]);
    assert.equal(doc.dag.taskRoute.inherit, 'parent_dag');
    assert.deepEqual(doc.dag.singleGate.dimensions, ['TOPO', 'REQMAP', 'RELEASE']);
    assert.deepEqual(doc.dag.reviewDepth.D4, { reviewers: 3, rounds: 3, dimSplit: 'one dimension each' });
    const text = capture();
    assert.equal(await runRoute(['--routing', file, '--label', 'Kind/Feature'], text.io), 0);
    assert.match(text.out.stdout, /^Entry: natural-language routing \(skill null\), mode none$/m);
    assert.match(text.out.stdout, /^Single gate: review-dag, dimensions TOPO, REQMAP, RELEASE;/m);
  });

  it('ambiguous labels: exit 3, {"ambiguous": [...]} naming them', async () => {
    const { out, io } = capture();
    const argv = ['--routing', file, '--label', 'Kind/Bug', '--label', 'Kind/Refactor'];
    assert.equal(await runRoute([...argv, '--json'], io), EXIT.refused);
    assert.deepEqual(JSON.parse(out.stdout), { ambiguous: ['Kind/Bug', 'Kind/Refactor'] });
    const t = capture();
    assert.equal(await runRoute(argv, t.io), 3);
    assert.match(t.out.stderr, /ambiguous: Kind\/Bug, Kind\/Refactor resolve to different routes/);
  });

  it('an invalid table: exit 1, its diagnostics as validate prints them (text and --json)', async () => {
    const bad = path.join(dir, 'bad.routing.yaml');
    writeFileSync(bad, 'version: 2\ndefault: {}\nroutes:\n  Kind/Bug: {entry: {skill: roadmap}}\n');
    const v = capture();
    await runValidate([bad], v.io);
    const r = capture();
    assert.equal(await runRoute(['--routing', bad, '--label', 'Kind/Bug'], r.io), EXIT.failed);
    assert.equal(r.out.stdout, v.out.stdout);
    assert.match(r.out.stderr, /failed validation \(2 errors\): no route resolved/);
    const vj = capture();
    await runValidate(['--json', bad], vj.io);
    const rj = capture();
    assert.equal(await runRoute(['--routing', bad, '--label', 'Kind/Bug', '--json'], rj.io), 1);
    assert.deepEqual(JSON.parse(rj.out.stdout), JSON.parse(vj.out.stdout));
  });

  it('usage: exit 2 for a missing --routing or --label, an unreadable file, --model without --base-url', async () => {
    for (const argv of [
      ['--label', 'Kind/Bug'],
      ['--routing', file],
      ['--routing', path.join(dir, 'none.yaml'), '--label', 'Kind/Bug'],
      ['--routing', file, '--label', 'Kind/Bug', '--model', 'p/m'],
      ['--routing', file, '--label', 'Kind/Bug', '--model', 'pm', '--base-url', 'http://127.0.0.1:1'],
      ['--routing', file, '--label', 'Kind/Bug', '--base-url', 'http://127.0.0.1:1'],
      ['--routing', file, '--routing', 'other.yaml', '--label', 'Kind/Bug'],
    ]) {
      const { out, io } = capture();
      assert.equal(await runRoute(argv, io), EXIT.usage, argv.join(' '));
      assert.match(out.stderr, /^session-ops route: /);
    }
  });

  describe('--model: the variant from the backend provider listing', () => {
    let server: SpecServer;
    beforeEach(async () => {
      server = await startSpecServer();
      server.setProviders(
        [
          {
            id: 'anthropic',
            options: { apiKey: 'SECRET-KEY' },
            models: {
              big: { id: 'big', variants: { high: { thinking: 'SECRET-VARIANT' }, max: {} } },
              plain: { id: 'plain' },
            },
          },
          { id: 'bare' },
        ],
        ['anthropic', 'bare'],
      );
    });
    afterEach(async () => server.stop());

    const run = async (label: string, model: string, json = true) => {
      const c = capture();
      const argv = ['--routing', file, '--label', label, '--model', model, '--base-url', server.url];
      const code = await runRoute(json ? [...argv, '--json'] : argv, c.io);
      return { code, ...c.out };
    };

    it('the variant of the effort when the model lists it; GET /provider only, in the current directory', async () => {
      const r = await run('Kind/Refactor', 'anthropic/big');
      assert.equal(r.code, 0, r.stderr);
      const doc = JSON.parse(r.stdout);
      assert.equal(doc.effort, 'max');
      assert.equal(doc.variant, 'max');
      assert.ok(!r.stdout.includes('SECRET'));
      assert.ok(server.requests.length > 0);
      for (const q of server.requests) {
        assert.equal(q.method, 'GET');
        assert.match(q.path, /^\/provider/);
        assert.equal(q.query.directory, '/work/route-test');
      }
      const t = await run('Kind/Refactor', 'anthropic/big', false);
      assert.match(t.stdout, /^Effort: max; variant: max$/m);
      assert.ok(!(t.stdout + t.stderr).includes('SECRET'));
    });

    it('a model without a variant table: the effort is ignored, said so', async () => {
      for (const model of ['anthropic/plain', 'bare/anything']) {
        const r = await run('Kind/Bug', model, false);
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^Effort: high; ignored: the model has no variant table$/m);
        assert.equal(JSON.parse((await run('Kind/Bug', model)).stdout).variant, null);
      }
    });

    it('a model whose variants have none named like the effort: null, named in the text', async () => {
      const r = await run('Kind/Chore', 'anthropic/big', false);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Effort: low; ignored: the model's variants \(high, max\) have none named low$/m);
    });

    it('a provider or model the backend does not list: exit 1, named', async () => {
      const p = await run('Kind/Bug', 'nobody/big');
      assert.equal(p.code, EXIT.failed);
      assert.match(p.stderr, /the backend lists no provider "nobody"/);
      const m = await run('Kind/Bug', 'anthropic/small');
      assert.equal(m.code, EXIT.failed);
      assert.match(m.stderr, /provider "anthropic" lists no model "small"/);
    });

    it('ambiguous labels are answered without reading the backend', async () => {
      const c = capture();
      const argv = ['--routing', file, '--label', 'Kind/Bug', '--label', 'Kind/Port', '--model', 'anthropic/big'];
      assert.equal(await runRoute([...argv, '--base-url', server.url], c.io), 3);
      assert.equal(server.requests.length, 0);
    });
  });

  it('--model against an unreachable backend: exit 1, "cannot read the backend"', async () => {
    const { out, io } = capture();
    const argv = ['--routing', file, '--label', 'Kind/Bug', '--model', 'p/m', '--base-url', 'http://127.0.0.1:9'];
    assert.equal(await runRoute([...argv, '--timeout', '2'], io), EXIT.failed);
    assert.match(out.stderr, /session-ops route: cannot read the backend/);
  });
});
