// package.json's `contributes.configuration` declares every setting again for VS Code; this test
// holds it equal to the models: the operator settings (src/core/settings/operator-settings.ts),
// the editor's own (src/core/settings/editor-settings.ts),
// the language server's (src/shared/settings.ts) and `backends` (src/core/config/backends.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SettingDefinition } from '../../../../src/core/settings/definition';
import { EDITOR_SETTINGS, RESTRICTED_EDITOR_SETTINGS } from '../../../../src/core/settings/editor-settings';
import { OPERATOR_SETTINGS, RESTRICTED_OPERATOR_SETTINGS } from '../../../../src/core/settings/operator-settings';
import { LANGUAGE_SERVER_SETTINGS } from '../../../../src/shared/settings';

interface Contributed {
  type: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  enumDescriptions?: string[];
  markdownDescription?: string;
  scope?: string;
  uniqueItems?: boolean;
  items?: { type: string; pattern?: string };
}

const pkg = JSON.parse(readFileSync(join(__dirname, '../../../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Contributed> } };
  capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
};
const contributed = pkg.contributes.configuration.properties;
const PREFIX = 'sessionOps.';
/** Declared by the backend-list parser (src/core/config/backends.ts), not a table of simple settings. */
const BACKENDS = 'sessionOps.backends';
/** Declared by the daemon-list parser (src/core/config/daemons.ts). */
const DAEMONS = 'sessionOps.daemons';

const models: Array<[string, Record<string, SettingDefinition>]> = [
  ['operator', OPERATOR_SETTINGS],
  ['editor', EDITOR_SETTINGS],
  ['language server', LANGUAGE_SERVER_SETTINGS],
];

/** What package.json must say for a model's definition. */
function expected(def: SettingDefinition): Contributed {
  const base = {
    default: def.default,
    markdownDescription: def.description,
    ...(def.scope ? { scope: def.scope } : {}),
  };
  switch (def.type) {
    case 'integer':
    case 'number':
      return {
        type: def.type,
        ...base,
        ...(def.minimum !== undefined ? { minimum: def.minimum } : {}),
        ...(def.maximum !== undefined ? { maximum: def.maximum } : {}),
      };
    case 'boolean':
      return { type: 'boolean', ...base };
    case 'string':
      return {
        type: 'string',
        ...base,
        ...(def.enum ? { enum: [...def.enum] } : {}),
        ...(def.enumDescriptions ? { enumDescriptions: [...def.enumDescriptions] } : {}),
      };
    case 'string-list':
      return {
        type: 'array',
        ...base,
        default: [...def.default],
        items: { type: 'string', ...(def.itemPattern ? { pattern: def.itemPattern } : {}) },
        ...(def.uniqueItems ? { uniqueItems: true } : {}),
      };
  }
}

describe('package.json contributes.configuration equals the settings models', () => {
  for (const [name, table] of models) {
    for (const [key, def] of Object.entries(table)) {
      it(`${name}: sessionOps.${key} (type, default, range, enum, scope, description)`, () => {
        const declared = contributed[PREFIX + key];
        assert.ok(declared, `package.json declares no sessionOps.${key}`);
        assert.deepEqual(declared, expected(def));
      });
    }
  }

  it('declares no setting the models do not have', () => {
    const modelled = new Set([
      BACKENDS,
      DAEMONS,
      ...models.flatMap(([, table]) => Object.keys(table).map((k) => PREFIX + k)),
    ]);
    const extra = Object.keys(contributed).filter((k) => !modelled.has(k));
    assert.deepEqual(extra, []);
  });

  it('restricts in untrusted workspaces exactly the restricted operator and editor settings (and backends)', () => {
    const restricted = [
      BACKENDS,
      DAEMONS,
      ...[...RESTRICTED_OPERATOR_SETTINGS, ...RESTRICTED_EDITOR_SETTINGS].map((k) => PREFIX + k),
    ].sort();
    assert.deepEqual([...pkg.capabilities.untrustedWorkspaces.restrictedConfigurations].sort(), restricted);
  });
});
