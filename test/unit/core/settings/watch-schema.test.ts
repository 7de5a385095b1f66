// The `watch` configuration's JSON Schema (schemas/session-ops.schema.json) declares the operator
// settings again for editors that validate the file; this test holds its defaults, bounds and
// item patterns equal to the model (src/core/settings/operator-settings.ts), under the same names.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SettingDefinition } from '../../../../src/core/settings/definition';
import { OPERATOR_SETTINGS, OPERATOR_SETTING_KEYS } from '../../../../src/core/settings/operator-settings';

interface SchemaNode {
  type?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  properties?: Record<string, SchemaNode>;
  items?: { type?: string; pattern?: string };
}

const schema = JSON.parse(
  readFileSync(join(__dirname, '../../../../schemas/session-ops.schema.json'), 'utf8'),
) as SchemaNode;

/** Settings only the editor has (a daemon shows no notifications). */
const EDITOR_ONLY = new Set(['notifications']);

function at(key: string): SchemaNode | undefined {
  let node: SchemaNode | undefined = schema;
  for (const part of key.split('.')) node = node?.properties?.[part];
  return node;
}

describe('the watch configuration schema declares the operator settings as the model does', () => {
  for (const key of OPERATOR_SETTING_KEYS.filter((k) => !EDITOR_ONLY.has(k))) {
    it(key, () => {
      const def = OPERATOR_SETTINGS[key] as SettingDefinition;
      const node = at(key);
      assert.ok(node, `schemas/session-ops.schema.json has no ${key}`);
      assert.deepEqual(node.default, def.default, 'default');
      switch (def.type) {
        case 'integer':
        case 'number':
          // A config file may give a fractional spacing with --allow-short-spacing (tests, demos).
          assert.ok(node.type === 'integer' || node.type === 'number', 'a number');
          assert.equal(node.minimum, def.minimum, 'minimum');
          assert.equal(node.maximum, def.maximum, 'maximum');
          break;
        case 'boolean':
          assert.equal(node.type, 'boolean');
          break;
        case 'string':
          assert.equal(node.type, 'string');
          break;
        case 'string-list':
          assert.equal(node.type, 'array');
          assert.deepEqual(node.items, { type: 'string', ...(def.itemPattern ? { pattern: def.itemPattern } : {}) });
          break;
      }
    });
  }

  it('declares no operator setting the model does not have', () => {
    /** The daemon's own keys, read by src/core/watch/config.ts. */
    const own = new Set(['$schema', 'backends', 'metrics']);
    const declared: string[] = [];
    const walk = (node: SchemaNode, prefix: string) => {
      for (const [name, child] of Object.entries(node.properties ?? {})) {
        const key = prefix ? `${prefix}.${name}` : name;
        if (!prefix && own.has(key)) continue;
        if (child.type === 'object') walk(child, key);
        else declared.push(key);
      }
    };
    walk(schema, '');
    assert.deepEqual(declared.sort(), OPERATOR_SETTING_KEYS.filter((k) => !EDITOR_ONLY.has(k)).sort());
  });
});
