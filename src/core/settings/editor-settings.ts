// The editor's own settings (no CLI flag or config-file key reads them), declared once like the
// operator settings (operator-settings.ts); package.json repeats them and
// test/unit/core/settings/package-configuration.test.ts holds it equal. Never imports 'vscode'.
import { coerceSetting, type SettingDefinition, type SettingValues } from './definition';

export const EDITOR_SETTINGS = {
  routingFile: {
    type: 'string',
    default: 'routing.yaml',
    scope: 'window',
    restricted: true,
    description:
      "The routing table **Dispatch Ticket...** reads the ticket's route from: a path relative to a workspace folder (the first folder holding it) or absolute. In Restricted Mode only your user settings may set it; the workspace's `routing.yaml` is still read there, and every composed prompt is shown to you before it is sent.",
  },
} as const satisfies Record<string, SettingDefinition>;

export type EditorSettingKey = keyof typeof EDITOR_SETTINGS;

export const EDITOR_SETTING_KEYS = Object.keys(EDITOR_SETTINGS) as readonly EditorSettingKey[];

/** The editor settings only the user's own settings may set in an untrusted workspace. */
export const RESTRICTED_EDITOR_SETTINGS: ReadonlySet<EditorSettingKey> = new Set(
  EDITOR_SETTING_KEYS.filter((key) => (EDITOR_SETTINGS[key] as SettingDefinition).restricted),
);

export type EditorSettings = SettingValues<typeof EDITOR_SETTINGS>;

/** Reads the editor settings from a source giving each raw value by name (a wrong value reads as the default). */
export function readEditorSettings(get: (key: EditorSettingKey) => unknown): EditorSettings {
  const out: Record<string, unknown> = {};
  for (const key of EDITOR_SETTING_KEYS) out[key] = coerceSetting(EDITOR_SETTINGS[key], get(key));
  return out as EditorSettings;
}
