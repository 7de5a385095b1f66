// The operator settings, declared once: how the monitor samples, when a verdict or a wall is read,
// which providers a recovery may choose, what automatic mode may do. Every host maps its own
// source onto this model through `readOperatorSettings`, and nothing else holds a default:
//   the extension   `sessionOps.<name>` in VS Code's settings, read leniently
//                   (src/extension/configuration.ts; the same names, declared again in package.json
//                   for VS Code, held equal by test/unit/core/settings/package-configuration.test.ts)
//   the CLI         its flags (src/cli/setting-flags.ts: a flag's default and help text come from here)
//   a config file   the `watch` config's nested groups (`{quotaWall: {retryWaitMinutes: 5}}`) through
//                   `nestedSource`, after its JSON Schema (src/core/watch/config-schema.ts) checked
//                   them; schemas/session-ops.schema.json repeats these names, types, bounds and
//                   defaults, held equal by test/unit/core/watch/config.test.ts
// The core computes in milliseconds: `monitorSettings` turns the minutes and seconds into them.
// Never imports 'vscode'.
import { coerceSetting, defaultsOf, type SettingDefinition, type SettingValues } from './definition';

/**
 * The most `prompt.maxKiB` may be: the confirmation read takes the stored prompt back as one
 * message, capped at 8 MiB (BODY_LIMITS.message), and JSON may write a character as 6 bytes.
 */
export const PROMPT_MAX_KIB_CEILING = 1024;

/** A provider id as a setting may name it. */
export const PROVIDER_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';

export const OPERATOR_SETTINGS = {
  sampleSpacingSeconds: {
    type: 'integer',
    default: 45,
    minimum: 30,
    maximum: 60,
    description:
      'Seconds between the two samples of a health verdict. The spec requires at least 30 s (typically 30-60 s): a single snapshot is never a basis for aborting.',
  },
  resetWithinReachMinutes: {
    type: 'integer',
    default: 120,
    minimum: 0,
    description:
      'A provider reset this many minutes away or sooner is *within reach*: the recommended action is to wait for the reset instead of escalating to a human.',
  },
  'recovery.providers': {
    type: 'string-list',
    default: [],
    itemPattern: PROVIDER_ID_PATTERN,
    uniqueItems: true,
    restricted: true,
    description:
      "The providers recovery and wake may choose a model on (ids such as `anthropic`, `openai`). Empty (the default): the providers you configured, that is every connected one except stock opencode's built-in `opencode` provider, which always counts as connected even without an account there; name `opencode` here to allow it. An explicitly chosen model is never overridden.",
  },
  'quotaWall.retryWaitMinutes': {
    type: 'number',
    default: 2,
    minimum: 0,
    description:
      'Stock opencode reports a failed model call it is retrying as a `retry` status. A rate-limit retry whose next attempt is at least this many minutes away is read as a **quota wall**; a shorter one is the backend retrying (often after failing over between same-name provider pools) and shows as *retrying (attempt n, next in s)* on a healthy row. A retry whose message names a usage limit, and a turn that ended on the error, are walls whatever the wait.',
  },
  'quotaWall.markMaxAgeMinutes': {
    type: 'number',
    default: 360,
    minimum: 1,
    description:
      "Stock opencode has no quota objects, so Session Ops remembers the quota walls it sees as *quota marks*. A mark without a reset time (other than a balance failure, which needs a top-up) ends after this many minutes, or earlier when the provider is seen completing a message. The mark's age is shown in the Sessions and Providers views.",
  },
  toolCeilingMinutes: {
    type: 'number',
    default: 30,
    minimum: 1,
    description:
      "A running tool call keeps a session whose steps and newest message stand still **healthy** for up to this many minutes; past it the verdict is **hung** with evidence like *tool `bash` running for 47 min, nothing else moved*. A tool waiting for a person's permission or answer is never subject to this ceiling.",
  },
  'automatic.abortHung': {
    type: 'boolean',
    default: false,
    scope: 'window',
    restricted: true,
    description:
      'Automatically abort sessions whose verdict is **hung** (two samples with everything frozen). Off by default.',
  },
  'automatic.wakeIdle': {
    type: 'boolean',
    default: false,
    scope: 'window',
    restricted: true,
    description: 'Automatically send a wake prompt to idle sessions with unfinished work. Off by default.',
  },
  'automatic.recoverQuotaWalls': {
    type: 'boolean',
    default: false,
    scope: 'window',
    restricted: true,
    description:
      'Automatically re-wake sessions stopped by a quota wall on a connected provider that is free. Off by default.',
  },
  'automatic.abortOverBudget': {
    type: 'boolean',
    default: false,
    scope: 'window',
    restricted: true,
    description:
      'Automatically abort a session whose cost (with its sub-agents) reached `sessionOps.budget.sessionUsd`, through the same safety rules as every automatic action (a settled verdict, logged, never twice, re-verified before the abort). Off by default.',
  },
  'automatic.maxAgeHours': {
    type: 'number',
    default: 24,
    minimum: 1,
    scope: 'window',
    restricted: true,
    description:
      "Automatic mode leaves alone a session whose newest message is older than this many hours (the message's own time as the backend reports it; a session whose newest message has no time is left alone too). A person may still act on it by hand.",
  },
  'automatic.maxConsecutiveWakes': {
    type: 'integer',
    default: 3,
    minimum: 1,
    scope: 'window',
    restricted: true,
    description:
      'After this many automatic wakes of one session that each ended idle again without a completion report, automatic mode stops waking it and asks a person: the row reads *stuck: woken N times without a report* and counts in the attention badge. The count survives a restart and starts again when a completion report arrives or a person acts on the session.',
  },
  'automatic.onlyTicketed': {
    type: 'boolean',
    default: false,
    scope: 'window',
    restricted: true,
    description:
      "Automatic mode acts only on sessions whose task names a ticket: a dispatch Session Ops made with a ticket (its record in the state directory), or a ticket reference (`PROJECT-123` or `#123`) in the session's first user message. Off by default.",
  },
  'budget.sessionUsd': {
    type: 'number',
    default: 0,
    minimum: 0,
    description:
      'A budget per session in US dollars (0: none). A session whose cost (with its sub-agents, as the backend reports it) reaches 80 % and then 100 % of it is notified once each; at 100 % it counts in the attention badge, and `sessionOps.automatic.abortOverBudget` aborts it.',
  },
  'prompt.maxKiB': {
    type: 'integer',
    default: 256,
    minimum: 1,
    maximum: PROMPT_MAX_KIB_CEILING,
    description:
      "The largest prompt Session Ops sends, in KiB of UTF-8 (the whole text: a prompt file or a composed prompt with its clauses). A larger one is refused before anything is sent, in every host's send guard (the CLI: exit 2 for a prompt file). At most 1024: the backend's stored copy must stay readable by the confirmation read.",
  },
  showCost: {
    type: 'boolean',
    default: true,
    description:
      "Show each session's cost on its row in the Sessions view (the tooltip shows cost and tokens either way). A backend that reports no cost shows none.",
  },
  useEventStream: {
    type: 'boolean',
    default: true,
    description:
      "On stock opencode, subscribe to the server's event stream (`GET /event`) and re-sample a session as soon as it reports a change. Polling stays the source of truth.",
  },
  notifications: {
    type: 'boolean',
    default: true,
    description: 'Notify when a session turns hung, hits a quota wall, or delivers a completion report.',
  },
} as const satisfies Record<string, SettingDefinition>;

export type OperatorSettingKey = keyof typeof OPERATOR_SETTINGS;

/** Every operator setting's name (as `sessionOps.<name>` in the editor and dotted in a config file). */
export const OPERATOR_SETTING_KEYS = Object.keys(OPERATOR_SETTINGS) as readonly OperatorSettingKey[];

/** The settings only the user's own settings may set in an untrusted workspace (package.json's restrictedConfigurations). */
export const RESTRICTED_OPERATOR_SETTINGS: ReadonlySet<OperatorSettingKey> = new Set(
  OPERATOR_SETTING_KEYS.filter((key) => (OPERATOR_SETTINGS[key] as SettingDefinition).restricted),
);

/** The operator settings' values, by setting name. */
export type OperatorSettings = SettingValues<typeof OPERATOR_SETTINGS>;

/** A fresh copy of every default. */
export function operatorDefaults(): OperatorSettings {
  return defaultsOf(OPERATOR_SETTINGS);
}

/** Every default (frozen: copy it before changing a value). */
export const OPERATOR_DEFAULTS: Readonly<OperatorSettings> = Object.freeze(operatorDefaults());

/** The `automatic.*` switches. */
export interface AutomaticSwitches {
  abortHung: boolean;
  wakeIdle: boolean;
  recoverQuotaWalls: boolean;
  /** Abort a session whose cost reached the budget (budget.sessionUsd > 0). */
  abortOverBudget: boolean;
}

/** Which sessions are in automatic mode's charge (src/core/operations/charge.ts). */
export interface ChargeSettings {
  /** A session whose newest message is older than this is not (automatic.maxAgeHours). */
  maxAgeMs: number;
  /** Automatic wakes without a report after which a session is stuck (automatic.maxConsecutiveWakes). */
  maxConsecutiveWakes: number;
  /** Only sessions whose task names a ticket are (automatic.onlyTicketed). */
  onlyTicketed: boolean;
}

export function chargeSettings(s: OperatorSettings): ChargeSettings {
  return {
    maxAgeMs: Math.round(s['automatic.maxAgeHours'] * 3_600_000),
    maxConsecutiveWakes: s['automatic.maxConsecutiveWakes'],
    onlyTicketed: s['automatic.onlyTicketed'],
  };
}

export function automaticSwitches(s: OperatorSettings): AutomaticSwitches {
  return {
    abortHung: s['automatic.abortHung'],
    wakeIdle: s['automatic.wakeIdle'],
    recoverQuotaWalls: s['automatic.recoverQuotaWalls'],
    abortOverBudget: s['automatic.abortOverBudget'],
  };
}

/** The settings in the units the core computes with. */
export interface MonitorSettings {
  /** Spacing between the samples of a verdict (sampleSpacingSeconds). */
  spacingMs: number;
  /** A provider reset this close is waited for (resetWithinReachMinutes). */
  resetWithinReachMs: number;
  /** A rate-limit retry waiting at least this long is a quota wall (quotaWall.retryWaitMinutes). */
  retryWaitMs: number;
  /** A quota mark without a reset time ends after this (quotaWall.markMaxAgeMinutes). */
  markMaxAgeMs: number;
  /** A tool running this long with nothing else moving is hung (toolCeilingMinutes). */
  toolCeilingMs: number;
  /** Which providers recovery may choose (recovery.providers; see ProviderScope). */
  providers: readonly string[];
  useEventStream: boolean;
  /** A budget per session in US dollars; 0: none (budget.sessionUsd). */
  budgetUsd: number;
  /** The largest prompt sent, in bytes of UTF-8 (prompt.maxKiB). */
  maxPromptBytes: number;
}

const MINUTE_MS = 60_000;

export function monitorSettings(s: OperatorSettings): MonitorSettings {
  return {
    spacingMs: Math.round(s.sampleSpacingSeconds * 1000),
    resetWithinReachMs: Math.round(s.resetWithinReachMinutes * MINUTE_MS),
    retryWaitMs: Math.round(s['quotaWall.retryWaitMinutes'] * MINUTE_MS),
    markMaxAgeMs: Math.round(s['quotaWall.markMaxAgeMinutes'] * MINUTE_MS),
    toolCeilingMs: Math.round(s.toolCeilingMinutes * MINUTE_MS),
    providers: s['recovery.providers'],
    useEventStream: s.useEventStream,
    budgetUsd: s['budget.sessionUsd'],
    maxPromptBytes: Math.round(s['prompt.maxKiB'] * 1024),
  };
}

/** The defaults in milliseconds: what a core function uses when its caller passes no value. */
export const DEFAULT_MONITOR_SETTINGS: Readonly<MonitorSettings> = Object.freeze(monitorSettings(OPERATOR_DEFAULTS));

/** A source of raw setting values by name (undefined: not set). */
export type SettingsSource = (key: OperatorSettingKey) => unknown;

/**
 * How a source's values are read. `lenient`: the editor's settings, which VS Code does not
 * enforce: a wrong value reads as the default, a number out of range as the nearest bound.
 * `checked`: values its host already validated (a config file by its JSON Schema, a CLI flag by
 * its flag parser, each with its own bounds, e.g. watch --allow-short-spacing), taken as given.
 */
export type SettingsReading = 'lenient' | 'checked';

/**
 * The one path from a host's settings to the operator settings: the editor's `sessionOps.*`, the
 * watch config's keys and the CLI's flags all come through here. Absent: the model's default.
 */
export function readOperatorSettings(get: SettingsSource, reading: SettingsReading = 'lenient'): OperatorSettings {
  const out: Record<string, unknown> = {};
  for (const key of OPERATOR_SETTING_KEYS) {
    const def = OPERATOR_SETTINGS[key] as SettingDefinition;
    const value = get(key);
    if (reading === 'lenient') out[key] = coerceSetting(def, value);
    else if (value === undefined) out[key] = Array.isArray(def.default) ? [...def.default] : def.default;
    else out[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
  }
  return out as OperatorSettings;
}

/**
 * A source over a nested object whose groups hold their settings (`{quotaWall: {retryWaitMinutes: 5}}`
 * gives `quotaWall.retryWaitMinutes`), as a config file writes them.
 */
export function nestedSource(tree: unknown): SettingsSource {
  return (key) => {
    let cur: unknown = tree;
    for (const part of key.split('.'))
      cur = cur && typeof cur === 'object' && !Array.isArray(cur) ? (cur as Record<string, unknown>)[part] : undefined;
    return cur;
  };
}
