// The shape of a `watch` configuration file once schemas/session-ops.schema.json accepted it: the
// TypeScript type of that schema, declared here once; its operator settings derived from the
// settings model. DAEMON_CONFIG_FILE_KEYS and CONFIG_FILE_BACKEND_KEYS spell the other keys as
// values (the compiler holds them equal to the types), and test/unit/core/watch/config-file.test.ts
// holds the schema's keys equal to them and the model's, so the type and the schema cannot drift.
import type { Surface } from '../model';
import type { OperatorSettings } from '../settings/operator-settings';
import type { LogLevel } from './log';

export interface ConfigFileBackend {
  name?: string;
  baseUrl: string;
  directories: string[];
  username?: string;
  surface?: Surface;
  passwordEnv?: string;
  passwordFile?: string;
}

/** The operator settings' dotted names (`quotaWall.retryWaitMinutes`). */
type SettingName = keyof OperatorSettings;
type TopName = { [K in SettingName]: K extends `${string}.${string}` ? never : K }[SettingName];
type GroupName = { [K in SettingName]: K extends `${infer G}.${string}` ? G : never }[SettingName];
type GroupOf<G extends string> = {
  [K in SettingName as K extends `${G}.${infer N}` ? N : never]?: OperatorSettings[K];
};

/**
 * The operator settings as a file nests them by group (`quotaWall: {retryWaitMinutes: 5}`): derived
 * from the settings model (src/core/settings/operator-settings.ts), so a new setting needs no line here.
 */
export type NestedOperatorSettings = { [K in TopName]?: OperatorSettings[K] } & { [G in GroupName]?: GroupOf<G> };

/** The file's keys that are the daemon's own (not operator settings). */
export interface DaemonConfigFile {
  $schema?: string;
  backends: ConfigFileBackend[];
  routing?: string;
  orchestrator?: string;
  metrics?: { maxSessionSeries?: number };
  logLevel?: LogLevel;
  auth?: { tokensFile?: string; metrics?: boolean };
  tls?: { certFile: string; keyFile: string };
  audit?: { maxMiB?: number; keep?: number };
}

export type WatchConfigFile = DaemonConfigFile & NestedOperatorSettings;

/** Every key of a type, each `true`, or for an object-valued key the same of that object. */
type KeyTree<T> = {
  [K in keyof Required<T>]-?: NonNullable<T[K]> extends readonly unknown[]
    ? true
    : NonNullable<T[K]> extends object
      ? KeyTree<NonNullable<T[K]>>
      : true;
};

/** The keys of DaemonConfigFile as values (an object-valued key: its own keys); the operator settings' are OPERATOR_SETTING_KEYS. */
export const DAEMON_CONFIG_FILE_KEYS: KeyTree<DaemonConfigFile> = {
  $schema: true,
  backends: true,
  routing: true,
  orchestrator: true,
  metrics: { maxSessionSeries: true },
  logLevel: true,
  auth: { tokensFile: true, metrics: true },
  tls: { certFile: true, keyFile: true },
  audit: { maxMiB: true, keep: true },
};

/** The keys of one backend as values. */
export const CONFIG_FILE_BACKEND_KEYS: KeyTree<ConfigFileBackend> = {
  name: true,
  baseUrl: true,
  directories: true,
  username: true,
  surface: true,
  passwordEnv: true,
  passwordFile: true,
};
