// The shipped Prometheus files checked by the real promtool (Debian's prometheus package, installed
// by the harness when missing): the example config, the alert rules and their unit tests. Fails,
// never skips, when promtool cannot be had.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ensurePrometheus } from '../support/ensure-prometheus.mjs';

const DIR = path.resolve(__dirname, '../../deploy/prometheus');

function promtool(bin: string, ...args: string[]) {
  const r = spawnSync(bin, args, { cwd: DIR, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

describe('deploy/prometheus with promtool', () => {
  let bin: string;
  before(() => {
    bin = ensurePrometheus().promtool;
  });

  it('promtool check config: the example prometheus.yml (with the rules it names)', () => {
    const r = promtool(bin, 'check', 'config', 'prometheus.yml');
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS: 1 rule files found/);
  });

  it('promtool check rules: one group session-ops with the nine alerts, each with for >= 2m, severity and summary', () => {
    const r = promtool(bin, 'check', 'rules', 'session-ops.rules.yml');
    assert.equal(r.code, 0, r.out);
    const doc = parse(readFileSync(path.join(DIR, 'session-ops.rules.yml'), 'utf8')) as {
      groups: Array<{
        name: string;
        rules: Array<{
          alert: string;
          for: string;
          labels: Record<string, string>;
          annotations: Record<string, string>;
        }>;
      }>;
    };
    assert.deepEqual(
      doc.groups.map((g) => g.name),
      ['session-ops'],
    );
    assert.deepEqual(
      doc.groups[0].rules.map((x) => x.alert),
      [
        'SessionOpsBackendDown',
        'SessionOpsSessionHung',
        'SessionOpsSessionWaitingForPerson',
        'SessionOpsSessionAtQuotaWall',
        'SessionOpsQuotaWallNoFreeProvider',
        'SessionOpsAllProvidersMarked',
        'SessionOpsAutomaticActionFailing',
        'SessionOpsSessionOverBudget',
        'SessionOpsSessionStuck',
      ],
    );
    for (const rule of doc.groups[0].rules) {
      // Two sampling spacings at the longest spacing (60 s): never on one snapshot.
      const m = /^(\d+)m$/.exec(rule.for);
      assert.ok(m && Number(m[1]) >= 2, `${rule.alert}: for ${rule.for}`);
      assert.match(rule.labels.severity, /^(critical|warning|info)$/, rule.alert);
      assert.match(rule.annotations.summary, /\{\{ \$labels\.(session|provider|backend) \}\}/, rule.alert);
    }
  });

  it('promtool test rules: each alert fires after its for, never on one snapshot', () => {
    const r = promtool(bin, 'test', 'rules', 'session-ops.rules.test.yml');
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SUCCESS/);
  });
});
