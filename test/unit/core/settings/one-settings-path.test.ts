// Issue 30 item 3: one settings model. The editor's `sessionOps.*` settings, an equivalent `watch`
// config file (YAML or JSON, nested by group) and the CLI's setting flags give the same operator
// settings, for any valid values (property-style, fast-check).
import { strict as assert } from 'node:assert';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { parseArgv } from '../../../../src/cli/args';
import { operatorSettingsFromFlags, SETTING_FLAGS, type SettingFlag } from '../../../../src/cli/setting-flags';
import type { SettingDefinition } from '../../../../src/core/settings/definition';
import {
  OPERATOR_SETTING_KEYS,
  OPERATOR_SETTINGS,
  operatorDefaults,
  readOperatorSettings,
  type OperatorSettingKey,
  type OperatorSettings,
} from '../../../../src/core/settings/operator-settings';
import { parseWatchConfig } from '../../../../src/core/watch/config';

/** Any valid value of a setting, by its definition. */
function valueOf(def: SettingDefinition): fc.Arbitrary<unknown> {
  switch (def.type) {
    case 'integer':
      return fc.integer({ min: def.minimum ?? -1e6, max: def.maximum ?? 1e6 });
    case 'number':
      return fc.double({ min: def.minimum ?? -1e6, max: def.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'string':
      return def.enum ? fc.constantFrom(...def.enum) : fc.string();
    case 'string-list': {
      const item = def.itemPattern ? fc.stringMatching(new RegExp(def.itemPattern)) : fc.string();
      return def.uniqueItems ? fc.uniqueArray(item, { maxLength: 4 }) : fc.array(item, { maxLength: 4 });
    }
  }
}

/** Some of the settings set to valid values (the others left unset). */
const someSettings: fc.Arbitrary<Partial<Record<OperatorSettingKey, unknown>>> = fc.record(
  Object.fromEntries(OPERATOR_SETTING_KEYS.map((k) => [k, valueOf(OPERATOR_SETTINGS[k] as SettingDefinition)])),
  { requiredKeys: [] },
) as fc.Arbitrary<Partial<Record<OperatorSettingKey, unknown>>>;

/** The dotted settings nested by group, as a config file writes them. */
function nested(values: Partial<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, Record<string, unknown> | unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const dot = key.lastIndexOf('.');
    if (dot < 0) out[key] = value;
    else ((out[key.slice(0, dot)] ??= {}) as Record<string, unknown>)[key.slice(dot + 1)] = value;
  }
  return out;
}

const BACKENDS = [{ baseUrl: 'http://127.0.0.1:4096', directories: ['/w'] }];

function fromWatchConfig(text: string): OperatorSettings {
  const parsed = parseWatchConfig(text, { allowShortSpacing: false });
  assert.deepEqual(
    parsed.problems.filter((p) => p.severity === 'error'),
    [],
  );
  return parsed.config!.operator;
}

describe('one settings model: the editor, the watch config and the CLI flags agree', () => {
  it('the editor settings and an equivalent watch config (YAML and JSON) give the same operator settings', () => {
    fc.assert(
      fc.property(someSettings, (values) => {
        const editor = readOperatorSettings((key) => values[key]);
        const file = { backends: BACKENDS, ...nested(values) };
        assert.deepEqual(fromWatchConfig(stringify(file)), editor);
        assert.deepEqual(fromWatchConfig(JSON.stringify(file)), editor);
        assert.deepEqual(editor, { ...operatorDefaults(), ...values });
      }),
      { numRuns: 100 },
    );
  });

  it("the CLI's setting flags give what the editor and the watch config give for the same values", () => {
    const flags = Object.keys(SETTING_FLAGS) as SettingFlag[];
    const flagValues = fc.record(
      Object.fromEntries(flags.map((f) => [f, valueOf(OPERATOR_SETTINGS[SETTING_FLAGS[f].setting])])),
      { requiredKeys: [] },
    ) as fc.Arbitrary<Partial<Record<SettingFlag, number>>>;
    fc.assert(
      fc.property(flagValues, (given) => {
        const argv = Object.entries(given).flatMap(([flag, v]) => [flag, String(v)]);
        const cli = operatorSettingsFromFlags(parseArgv(argv, { flags: [], options: flags }), flags);
        const values = Object.fromEntries(
          Object.entries(given).map(([f, v]) => [SETTING_FLAGS[f as SettingFlag].setting, v]),
        );
        assert.deepEqual(
          cli,
          readOperatorSettings((key) => values[key]),
        );
        assert.deepEqual(cli, fromWatchConfig(stringify({ backends: BACKENDS, ...nested(values) })));
      }),
      { numRuns: 100 },
    );
  });
});
