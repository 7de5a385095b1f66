// How a setting is declared: its type, default, range or allowed values, and description, written
// once. The operator settings (operator-settings.ts) and the language server's settings
// (src/shared/settings.ts) are tables of these; package.json's `contributes.configuration`
// repeats them for VS Code and a unit test holds it equal to the tables.
// `coerceSetting` reads a value leniently (the editor's settings, which VS Code does not enforce: a
// wrong value reads as the default, a number out of range as the nearest bound). A config file is
// validated strictly by its JSON Schema (src/core/watch/config-schema.ts), not here.

interface Common {
  /** Markdown, as VS Code shows it (package.json's markdownDescription). */
  readonly description: string;
  /** VS Code's scope when not the default (`window`: never per resource). */
  readonly scope?: 'window';
  /** Only the user's own settings may set it in an untrusted workspace. */
  readonly restricted?: boolean;
}

export interface NumberSetting extends Common {
  readonly type: 'integer' | 'number';
  readonly default: number;
  readonly minimum?: number;
  readonly maximum?: number;
}

export interface BooleanSetting extends Common {
  readonly type: 'boolean';
  readonly default: boolean;
}

export interface StringSetting extends Common {
  readonly type: 'string';
  readonly default: string;
  /** The allowed values, each with its description. */
  readonly enum?: readonly string[];
  readonly enumDescriptions?: readonly string[];
}

export interface StringListSetting extends Common {
  readonly type: 'string-list';
  readonly default: readonly string[];
  /** Every item must match (a JSON Schema / ECMAScript pattern). */
  readonly itemPattern?: string;
  readonly uniqueItems?: boolean;
}

export type SettingDefinition = NumberSetting | BooleanSetting | StringSetting | StringListSetting;

/** The value type a definition declares. */
export type SettingValue<D extends SettingDefinition> = D extends NumberSetting
  ? number
  : D extends BooleanSetting
    ? boolean
    : D extends StringSetting
      ? string
      : readonly string[];

/** The values of a table of definitions, by setting name. */
export type SettingValues<T extends Record<string, SettingDefinition>> = {
  -readonly [K in keyof T]: SettingValue<T[K]>;
};

export function defaultsOf<T extends Record<string, SettingDefinition>>(table: T): SettingValues<T> {
  const out: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(table))
    out[key] = Array.isArray(def.default) ? [...def.default] : def.default;
  return out as SettingValues<T>;
}

/** The value if it is valid; a number out of range as the nearest bound (rounded for an integer); else the default. */
export function coerceSetting<D extends SettingDefinition>(def: D, value: unknown): SettingValue<D> {
  return coerced(def, value) as SettingValue<D>;
}

function coerced(def: SettingDefinition, value: unknown): unknown {
  const fallback = Array.isArray(def.default) ? [...def.default] : def.default;
  switch (def.type) {
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
      const n = def.type === 'integer' ? Math.round(value) : value;
      return Math.min(def.maximum ?? Infinity, Math.max(def.minimum ?? -Infinity, n));
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : fallback;
    case 'string':
      return typeof value === 'string' && (!def.enum || def.enum.includes(value)) ? value : fallback;
    case 'string-list': {
      if (!Array.isArray(value)) return fallback;
      const pattern = def.itemPattern === undefined ? null : new RegExp(def.itemPattern);
      const items = value.filter((x): x is string => typeof x === 'string' && (!pattern || pattern.test(x)));
      return def.uniqueItems ? [...new Set(items)] : items;
    }
  }
}
