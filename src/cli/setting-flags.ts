// The CLI's flags that set an operator setting (src/core/settings/operator-settings.ts): the
// default and the unit come from the model, the flag keeps its own lower bound (a command may
// accept less than the editor, e.g. a spacing under 30 s with --allow-short-spacing), and never more
// than the setting's maximum (--spacing 3600 is refused as the watch config refuses 61).
import { numberOption, UsageError, type ParsedArgs } from './args';
import type { NumberSetting } from '../core/settings/definition';
import {
  monitorSettings,
  OPERATOR_DEFAULTS,
  OPERATOR_SETTINGS,
  readOperatorSettings,
  type MonitorSettings,
  type OperatorSettingKey,
  type OperatorSettings,
} from '../core/settings/operator-settings';

type NumberSettingKey = {
  [K in OperatorSettingKey]: (typeof OPERATOR_DEFAULTS)[K] extends number ? K : never;
}[OperatorSettingKey];

export const SETTING_FLAGS = {
  '--spacing': { setting: 'sampleSpacingSeconds', min: 0 },
  '--reset-within-reach': { setting: 'resetWithinReachMinutes', min: 0 },
  '--retry-wall-minutes': { setting: 'quotaWall.retryWaitMinutes', min: 0 },
  '--tool-ceiling-minutes': { setting: 'toolCeilingMinutes', min: 0 },
  '--mark-max-age-minutes': { setting: 'quotaWall.markMaxAgeMinutes', min: 0 },
  '--max-prompt-kib': { setting: 'prompt.maxKiB', min: 1 },
} as const satisfies Record<string, { setting: NumberSettingKey; min: number }>;

export type SettingFlag = keyof typeof SETTING_FLAGS;

/** The flag's default, in the setting's unit (for the usage text). */
export function flagDefault(flag: SettingFlag): number {
  return OPERATOR_DEFAULTS[SETTING_FLAGS[flag].setting];
}

/**
 * The flag's value in the setting's unit: the model's default when absent; a UsageError under the
 * flag's minimum or above the setting's maximum.
 */
export function settingFlag(a: ParsedArgs, flag: SettingFlag): number {
  const { setting, min } = SETTING_FLAGS[flag];
  const def: NumberSetting = OPERATOR_SETTINGS[setting];
  const n = numberOption(a, flag, flagDefault(flag), min);
  if (def.maximum !== undefined && n > def.maximum)
    throw new UsageError(`${flag} ${a.values.get(flag)} is above ${def.maximum}, the most ${setting} allows`);
  return n;
}

/**
 * The operator settings the given flags set, read by the settings model (src/core/settings) as
 * the editor's settings and the watch config are; the others are the model's defaults.
 */
export function operatorSettingsFromFlags(a: ParsedArgs, flags: readonly SettingFlag[]): OperatorSettings {
  const values = new Map<OperatorSettingKey, number>();
  for (const flag of flags) values.set(SETTING_FLAGS[flag].setting, settingFlag(a, flag));
  return readOperatorSettings((key) => values.get(key), 'checked');
}

/** The monitor settings the given flags set (in milliseconds); the others are the model's defaults. */
export function settingsFromFlags(a: ParsedArgs, flags: readonly SettingFlag[]): MonitorSettings {
  return monitorSettings(operatorSettingsFromFlags(a, flags));
}
