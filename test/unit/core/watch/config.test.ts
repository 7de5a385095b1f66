// The watch configuration: schema-driven checks with ranges, defaults from the schema, the
// password rules, and the agreement of the schema with the editor's sessionOps.* settings.
import { strict as assert } from 'node:assert';
import {
  configSchema,
  formatProblem,
  isWatchConfigFileName,
  parseWatchConfig,
  schemaDefault,
} from '../../../../src/core/watch/config';
import type { SettingDefinition } from '../../../../src/core/settings/definition';
import {
  OPERATOR_SETTING_KEYS,
  OPERATOR_SETTINGS,
  operatorDefaults,
} from '../../../../src/core/settings/operator-settings';

const GOOD = `backends:
  - name: build-box
    baseUrl: http://127.0.0.1:4096
    directories: [/srv/work/payments]
    username: opencode
    passwordEnv: BUILD_BOX_PW
sampleSpacingSeconds: 45
automatic: { wakeIdle: false, recoverQuotaWalls: false, abortHung: false }
`;

function only(text: string, opts = {}) {
  const r = parseWatchConfig(text, opts);
  assert.equal(r.config, null, 'an error leaves no config');
  return r.problems.filter((p) => p.severity === 'error');
}

describe('core/watch/config', () => {
  it('reads the example of the issue, with every other setting at the schema default', () => {
    const { config, problems } = parseWatchConfig(GOOD);
    assert.deepEqual(problems, []);
    assert.deepEqual(config, {
      backends: [
        {
          key: 'http://127.0.0.1:4096/',
          name: 'build-box',
          baseUrl: 'http://127.0.0.1:4096',
          directories: ['/srv/work/payments'],
          insecure: false,
          surface: 'auto',
          auth: { from: 'env', username: 'opencode', variable: 'BUILD_BOX_PW' },
        },
      ],
      orchestrator: null,
      operator: operatorDefaults(),
      metrics: { maxSessionSeries: 5000 },
      logLevel: 'info',
      routing: null,
      auth: { tokensFile: null, metrics: false },
      tls: null,
      audit: { maxBytes: 10 * 1024 * 1024, keep: 3 },
    });
  });

  it('orchestrator: the session the daemon speaks for (default none); empty or with spaces is an error at its value', () => {
    assert.equal(parseWatchConfig(`${GOOD}orchestrator: ses_orch1\n`).config!.orchestrator, 'ses_orch1');
    assert.equal(parseWatchConfig(GOOD).config!.orchestrator, null);
    for (const bad of ['""', '"ses one"', '3']) {
      const text = `${GOOD}orchestrator: ${bad}\n`;
      const [problem] = only(text);
      assert.match(problem.path, /^orchestrator$/);
      assert.equal(text.slice(problem.start, problem.end), bad);
    }
  });

  it('backends[].surface: auto, api or legacy (default auto); anything else is an error', () => {
    const withSurface = (v: string) => GOOD.replace('directories:', `surface: ${v}\n    directories:`);
    assert.equal(parseWatchConfig(withSurface('api')).config!.backends[0].surface, 'api');
    assert.equal(parseWatchConfig(withSurface('legacy')).config!.backends[0].surface, 'legacy');
    const bad = parseWatchConfig(withSurface('v2'));
    assert.equal(bad.config, null);
    assert.ok(
      bad.problems.some((p) => p.path.includes('surface')),
      JSON.stringify(bad.problems),
    );
  });

  it('logLevel: debug, info, warn or error (default info); anything else is an error at its value', () => {
    assert.equal(parseWatchConfig(GOOD).config!.logLevel, 'info');
    for (const level of ['debug', 'info', 'warn', 'error'])
      assert.equal(parseWatchConfig(`${GOOD}logLevel: ${level}\n`).config!.logLevel, level);
    const text = `${GOOD}logLevel: verbose\n`;
    const [problem] = only(text);
    assert.equal(problem.code, 'config.enum');
    assert.equal(problem.message, 'logLevel must be one of debug, info, warn, error');
    assert.equal(text.slice(problem.start, problem.end), 'verbose');
    assert.equal(only(`${GOOD}logLevel: 2\n`)[0].code, 'config.type');
  });

  it('reads JSON as well, and names a backend by host:port when unnamed', () => {
    const { config, problems } = parseWatchConfig(
      JSON.stringify({
        backends: [{ baseUrl: 'http://127.0.0.1:9/', directories: ['/w'] }],
        metrics: { maxSessionSeries: 7 },
      }),
    );
    assert.deepEqual(problems, []);
    assert.equal(config!.backends[0].name, '127.0.0.1:9');
    assert.equal(config!.backends[0].baseUrl, 'http://127.0.0.1:9');
    assert.deepEqual(config!.backends[0].auth, { from: 'none' });
    assert.equal(config!.metrics.maxSessionSeries, 7);
  });

  it('an unknown key is an error on the key itself, naming the known ones', () => {
    const text = GOOD.replace('sampleSpacingSeconds: 45', 'sampleSpacingSecs: 45');
    const [p] = only(text);
    assert.equal(p.code, 'config.unknown-key');
    assert.equal(text.slice(p.start, p.end), 'sampleSpacingSecs');
    assert.match(p.message, /unknown key "sampleSpacingSecs" in the file \(known: .*sampleSpacingSeconds/);
    const nested = only(GOOD.replace('wakeIdle: false', 'wakeIdel: false'));
    assert.equal(nested[0].path, 'automatic.wakeIdel');
  });

  it('a password written inline is an error that never repeats it', () => {
    const text = GOOD.replace('passwordEnv: BUILD_BOX_PW', 'password: hunter2-secret');
    const [p] = only(text);
    assert.equal(p.code, 'config.inline-password');
    assert.equal(p.path, 'backends[0].password');
    assert.equal(text.slice(p.start, p.end), 'password');
    assert.doesNotMatch(p.message, /hunter2/);
    assert.match(p.message, /passwordEnv.*passwordFile/);
    assert.doesNotMatch(formatProblem('c.yaml', text, p), /hunter2/);
  });

  it('passwordEnv and passwordFile exclude each other', () => {
    const [p] = only(GOOD.replace('passwordEnv: BUILD_BOX_PW', 'passwordEnv: X\n    passwordFile: /run/x'));
    assert.equal(p.code, 'config.exclusive');
    assert.equal(p.path, 'backends[0]');
  });

  it('types, bounds, required keys and patterns, each at its place', () => {
    const cases: Array<[string, string, string]> = [
      ['sampleSpacingSeconds: 45', 'sampleSpacingSeconds: 61', 'config.maximum'],
      ['sampleSpacingSeconds: 45', 'sampleSpacingSeconds: fast', 'config.type'],
      ['sampleSpacingSeconds: 45', 'metrics: { maxSessionSeries: 1.5 }', 'config.type'],
      ['sampleSpacingSeconds: 45', 'toolCeilingMinutes: 0', 'config.minimum'],
      ['sampleSpacingSeconds: 45', 'recovery: { providers: ["bad provider"] }', 'config.pattern'],
      ['    directories: [/srv/work/payments]\n', '', 'config.required'],
      ['    directories: [/srv/work/payments]', '    directories: []', 'config.min-items'],
      ['baseUrl: http://127.0.0.1:4096', 'baseUrl: ftp://x', 'config.pattern'],
      ['automatic: {', 'automatic: 3\nx: {', 'config.type'],
    ];
    for (const [from, to, code] of cases) {
      const problems = only(GOOD.replace(from, to));
      assert.ok(
        problems.some((p) => p.code === code),
        `${to}: ${JSON.stringify(problems)}`,
      );
    }
    assert.equal(only('')[0].code, 'config.required');
    assert.equal(only('backends: [\n')[0].code, 'config.syntax');
    assert.equal(only(GOOD + 'sampleSpacingSeconds: 50\n')[0].code, 'config.syntax', 'duplicate key');
  });

  it('spacing under 30 s: an error for watch unless --allow-short-spacing, a warning in the editor', () => {
    const text = GOOD.replace('sampleSpacingSeconds: 45', 'sampleSpacingSeconds: 2');
    assert.equal(only(text, { allowShortSpacing: false })[0].code, 'config.short-spacing');
    const allowed = parseWatchConfig(text, { allowShortSpacing: true });
    assert.deepEqual(allowed.problems, []);
    assert.equal(allowed.config!.operator.sampleSpacingSeconds, 2);
    const editor = parseWatchConfig(text);
    assert.equal(editor.problems[0].severity, 'warning');
    assert.equal(
      only(GOOD.replace('sampleSpacingSeconds: 45', 'sampleSpacingSeconds: 0'), { allowShortSpacing: true })[0].code,
      'config.minimum',
    );
  });

  it('backend names and URLs are unique; clear-text http off this machine is a warning', () => {
    const two = `backends:\n  - { name: a, baseUrl: "http://127.0.0.1:1", directories: [/w] }\n  - { name: a, baseUrl: "http://127.0.0.1:1/", directories: [/w] }\n`;
    const problems = only(two);
    assert.deepEqual(
      problems.map((p) => p.path),
      ['backends[1].name', 'backends[1].baseUrl'],
    );
    const remote = parseWatchConfig(`backends:\n  - { baseUrl: "http://10.1.2.3:4096", directories: [/w] }\n`);
    assert.ok(remote.config);
    assert.equal(remote.problems[0].code, 'config.plain-http');
    assert.equal(remote.problems[0].severity, 'warning');
  });

  it('the file kind: session-ops.yaml and *.session-ops.yaml', () => {
    for (const f of ['/etc/session-ops.yaml', 'x/night.session-ops.yaml', 'session-ops.yml', 'a.session-ops.json'])
      assert.equal(isWatchConfigFileName(f), true, f);
    for (const f of ['/etc/session-ops.yaml.bak', 'routing.yaml', 'xsession-ops.yaml', '.session-ops.yaml'])
      assert.equal(isWatchConfigFileName(f), false, f);
  });

  it('nested operator settings map onto the core model, under its names', () => {
    const { config, problems } = parseWatchConfig(
      `${GOOD}recovery: { providers: [anthropic] }\nquotaWall: { retryWaitMinutes: 5 }\nautomatic: { abortHung: true }\nnotifications: false\n`.replace(
        'automatic: { wakeIdle: false, recoverQuotaWalls: false, abortHung: false }\n',
        '',
      ),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(config!.operator, {
      ...operatorDefaults(),
      'recovery.providers': ['anthropic'],
      'quotaWall.retryWaitMinutes': 5,
      'automatic.abortHung': true,
      notifications: false,
    });
    assert.equal(only(`${GOOD}recovery: { providers: [a, a] }\n`)[0].code, 'config.unique-items');
  });

  it('the schema repeats the core operator settings exactly: names, types, bounds, patterns, defaults', () => {
    const schemaOf = (key: string) => {
      let s = configSchema as { properties?: Record<string, unknown> };
      for (const part of key.split('.')) s = s.properties![part] as typeof s;
      return s as Record<string, unknown>;
    };
    for (const key of OPERATOR_SETTING_KEYS) {
      const def = OPERATOR_SETTINGS[key] as SettingDefinition;
      const s = schemaOf(key);
      assert.ok(s, `${key} is in the schema`);
      assert.deepEqual(s.default, def.default, `${key} default`);
      assert.deepEqual(schemaDefault(key), def.default, `${key} default`);
      if (def.type === 'string-list') {
        assert.equal(s.type, 'array', key);
        assert.deepEqual(s.items, { type: 'string', pattern: def.itemPattern }, key);
        assert.equal(s.uniqueItems ?? false, def.uniqueItems ?? false, key);
      } else {
        assert.equal(s.type, def.type, key);
        if (def.type === 'integer' || def.type === 'number') {
          assert.equal(s.minimum, def.minimum, `${key} minimum`);
          assert.equal(s.maximum, def.maximum, `${key} maximum`);
        }
      }
    }
    const flat = (s: typeof configSchema, prefix = ''): string[] =>
      Object.entries(s.properties ?? {}).flatMap(([k, v]) =>
        v.type === 'object' && v.properties ? flat(v as typeof configSchema, `${prefix}${k}.`) : [`${prefix}${k}`],
      );
    const schemaKeys = flat(configSchema).filter(
      (k) =>
        ![
          '$schema',
          'backends',
          'orchestrator',
          'metrics.maxSessionSeries',
          'logLevel',
          'routing',
          'auth.tokensFile',
          'auth.metrics',
          'tls.certFile',
          'tls.keyFile',
          'audit.maxMiB',
          'audit.keep',
        ].includes(k),
    );
    assert.deepEqual(schemaKeys.sort(), [...OPERATOR_SETTING_KEYS].sort());
  });
});
