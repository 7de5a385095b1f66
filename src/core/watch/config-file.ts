// The shape of a `watch` configuration file once schemas/session-ops.schema.json accepted it: the
// TypeScript type of that schema, declared here once. CONFIG_FILE_KEYS spells its keys as values
// (the compiler holds it equal to the type), and test/unit/core/watch/config-file.test.ts holds
// the schema's keys equal to it, so the type and the schema cannot drift apart.
import type { Surface } from '../model';
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

export interface WatchConfigFile {
  $schema?: string;
  backends: ConfigFileBackend[];
  routing?: string;
  orchestrator?: string;
  sampleSpacingSeconds?: number;
  resetWithinReachMinutes?: number;
  recovery?: { providers?: string[] };
  quotaWall?: { retryWaitMinutes?: number; markMaxAgeMinutes?: number };
  toolCeilingMinutes?: number;
  automatic?: {
    abortHung?: boolean;
    wakeIdle?: boolean;
    recoverQuotaWalls?: boolean;
    abortOverBudget?: boolean;
    maxAgeHours?: number;
    maxConsecutiveWakes?: number;
    onlyTicketed?: boolean;
  };
  budget?: { sessionUsd?: number };
  prompt?: { maxKiB?: number };
  showCost?: boolean;
  useEventStream?: boolean;
  notifications?: boolean;
  metrics?: { maxSessionSeries?: number };
  logLevel?: LogLevel;
  auth?: { tokensFile?: string; metrics?: boolean };
  tls?: { certFile: string; keyFile: string };
  audit?: { maxMiB?: number; keep?: number };
}

/** Every key of a type, each `true`, or for an object-valued key the same of that object. */
type KeyTree<T> = {
  [K in keyof Required<T>]-?: NonNullable<T[K]> extends readonly unknown[]
    ? true
    : NonNullable<T[K]> extends object
      ? KeyTree<NonNullable<T[K]>>
      : true;
};

/** The keys of WatchConfigFile as values (an object-valued key: its own keys). */
export const CONFIG_FILE_KEYS: KeyTree<WatchConfigFile> = {
  $schema: true,
  backends: true,
  routing: true,
  orchestrator: true,
  sampleSpacingSeconds: true,
  resetWithinReachMinutes: true,
  recovery: { providers: true },
  quotaWall: { retryWaitMinutes: true, markMaxAgeMinutes: true },
  toolCeilingMinutes: true,
  automatic: {
    abortHung: true,
    wakeIdle: true,
    recoverQuotaWalls: true,
    abortOverBudget: true,
    maxAgeHours: true,
    maxConsecutiveWakes: true,
    onlyTicketed: true,
  },
  budget: { sessionUsd: true },
  prompt: { maxKiB: true },
  showCost: true,
  useEventStream: true,
  notifications: true,
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
