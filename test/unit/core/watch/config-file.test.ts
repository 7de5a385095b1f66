// The `watch` config file's TypeScript type (config-file.ts, declared once) and its JSON Schema
// (schemas/session-ops.schema.json) name the same keys, at every level; the one schema engine
// compiles the schema strictly, and a bad file gets an error naming the path and what was wrong.
import { strict as assert } from 'node:assert';
import { OPERATOR_SETTING_KEYS } from '../../../../src/core/settings/operator-settings';
import {
  CONFIG_FILE_BACKEND_KEYS,
  DAEMON_CONFIG_FILE_KEYS,
  type WatchConfigFile,
} from '../../../../src/core/watch/config-file';
import { configSchema, parseWatchConfig } from '../../../../src/core/watch/config';

interface Part {
  type?: string;
  properties?: Record<string, Part>;
  $ref?: string;
}

/** Every key path of a schema ("quotaWall.retryWaitMinutes"); a $ref is not followed. */
function schemaPaths(s: Part, prefix = ''): string[] {
  return Object.entries(s.properties ?? {}).flatMap(([k, v]) =>
    v.type === 'object' && v.properties ? schemaPaths(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

/** Every key path of a key tree (DAEMON_CONFIG_FILE_KEYS, CONFIG_FILE_BACKEND_KEYS). */
function typePaths(tree: object, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([k, v]) =>
    v === true ? [`${prefix}${k}`] : typePaths(v as object, `${prefix}${k}.`),
  );
}

describe('core/watch/config-file: the type and the schema agree', () => {
  it("the file: the same keys at every level (the daemon's own and the settings model's)", () => {
    assert.deepEqual(
      [...typePaths(DAEMON_CONFIG_FILE_KEYS), ...OPERATOR_SETTING_KEYS].sort(),
      schemaPaths(configSchema).sort(),
    );
  });

  it('the operator settings nest by group in the type as in the schema', () => {
    const file: WatchConfigFile = {
      backends: [{ baseUrl: 'http://127.0.0.1:1', directories: ['/w'] }],
      sampleSpacingSeconds: 30,
      quotaWall: { retryWaitMinutes: 1 },
      automatic: { wakeIdle: true },
      recovery: { providers: ['a'] },
    };
    // The compiler knows each group's keys and types (held here: these lines would compile otherwise).
    // @ts-expect-error an unknown key of a group
    const unknownKey: WatchConfigFile = { backends: [], quotaWall: { retryWait: 1 } };
    // @ts-expect-error a wrong type
    const wrongType: WatchConfigFile = { backends: [], automatic: { wakeIdle: 'yes' } };
    assert.ok(unknownKey && wrongType);
    assert.deepEqual(
      parseWatchConfig(JSON.stringify(file)).problems.filter((p) => p.severity === 'error'),
      [],
    );
  });

  it('a backend: the same keys', () => {
    assert.deepEqual(typePaths(CONFIG_FILE_BACKEND_KEYS).sort(), schemaPaths(configSchema.$defs.backend).sort());
    assert.equal((configSchema.properties!.backends as { items: Part }).items.$ref, '#/$defs/backend');
  });
});

describe('core/watch/config: a bad file gets a clear error naming the path', () => {
  const base = 'backends:\n  - baseUrl: http://127.0.0.1:4096\n    directories: [/w]\n';
  const cases: Array<[string, string, string | RegExp]> = [
    [`${base}sampleSpacingSeconds: "45"\n`, 'sampleSpacingSeconds', 'sampleSpacingSeconds must be an integer'],
    [`${base}sampleSpacingSeconds: 61\n`, 'sampleSpacingSeconds', 'sampleSpacingSeconds must be at most 60'],
    [`${base}toolCeilingMinutes: 0\n`, 'toolCeilingMinutes', 'toolCeilingMinutes must be at least 1'],
    [`${base}automatic: { abortHung: "yes" }\n`, 'automatic.abortHung', 'automatic.abortHung must be a boolean'],
    [`${base}automatic: true\n`, 'automatic', 'automatic must be a mapping'],
    [
      `${base}automatic: { wakeAll: true }\n`,
      'automatic.wakeAll',
      'unknown key "wakeAll" in automatic (known: abortHung, wakeIdle, recoverQuotaWalls, abortOverBudget, maxAgeHours, maxConsecutiveWakes, onlyTicketed)',
    ],
    [
      `${base}recovery: { providers: [ok, "bad id"] }\n`,
      'recovery.providers[1]',
      'recovery.providers[1] must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$',
    ],
    [`${base}recovery: { providers: [a, a] }\n`, 'recovery.providers', 'recovery.providers lists an item twice'],
    [`${base}recovery: { providers: anthropic }\n`, 'recovery.providers', 'recovery.providers must be a list'],
    [`${base}'automatic.wakeIdle': true\n`, 'automatic.wakeIdle', /^unknown key "automatic.wakeIdle" in the file/],
    [`${base}routing: "   "\n`, 'routing', 'routing must not be empty'],
    [`${base}tls: { certFile: a.pem }\n`, 'tls', 'tls needs "keyFile"'],
    [base.replace('[/w]', '[/w, 3]'), 'backends[0].directories[1]', 'backends[0].directories[1] must be a string'],
    [base.replace('    directories: [/w]\n', ''), 'backends[0]', 'backends[0] needs "directories"'],
    ['backends: {}\n', 'backends', 'backends must be a list'],
    ['- 1\n', '', 'the file must be a mapping'],
  ];

  for (const [text, path, message] of cases)
    it(`${path || 'the file'}: ${String(message)}`, () => {
      const { config, problems } = parseWatchConfig(text, { allowShortSpacing: false });
      assert.equal(config, null);
      const errors = problems.filter((p) => p.severity === 'error');
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.equal(errors[0].path, path);
      if (typeof message === 'string') assert.equal(errors[0].message, message);
      else assert.match(errors[0].message, message);
    });

  it('reports every problem at once, in the order of the file', () => {
    const text = `${base}nope: 1\nuseEventStream: 1\nautomatic: { wakeIdle: 2 }\n`;
    const { problems } = parseWatchConfig(text);
    assert.deepEqual(
      problems.map((p) => [p.path, p.code, text.slice(p.start, p.end)]),
      [
        ['nope', 'config.unknown-key', 'nope'],
        ['useEventStream', 'config.type', '1'],
        ['automatic.wakeIdle', 'config.type', '2'],
      ],
    );
  });
});
