// Shared argument parsing of the session-ops commands: --flag, --option VALUE, --option=VALUE and
// positionals (`-` is one; after `--` every argument is one); a UsageError (exit 2) for anything
// unknown or missing, and for an option given twice with different values (an option repeats only
// when its command declares it a list, e.g. `route --label A --label B`: the last one never
// silently wins). Plus the common backend flags (--base-url, --directory) and the client built
// from them with the password taken from the environment only.
import { BackendClient } from '../core/backend/client';
import type { Clock } from '../core/clock';
import { BackendError } from '../core/backend/errors';
import { EXIT } from './exit-codes';
import type { QuotaMarkBook } from '../core/backend/quota-marks';
import { DEFAULT_USERNAME } from '../core/backend/credentials';
import { MARK_STORE_HELP } from './mark-store';
import { normalizeBackend, type BackendConfig } from '../core/config/backends';

export class UsageError extends Error {}

export interface ParsedArgs {
  values: Map<string, string>;
  /** The values of the list options, in the order given (absent: not given). */
  lists?: Map<string, string[]>;
  flags: Set<string>;
  positionals: string[];
}

export interface ArgSpec {
  flags: string[];
  options: string[];
  /** Options that may be given several times, each value kept in order (`--label A --label B`). */
  lists?: string[];
  /** How many positionals are accepted (default 0; Infinity: any number). After `--` every argument is one. */
  positionals?: number;
}

export function parseArgv(argv: string[], spec: ArgSpec): ParsedArgs {
  const flagSet = new Set([...spec.flags, '--help', '-h']);
  const optionSet = new Set(spec.options);
  const listSet = new Set(spec.lists ?? []);
  const values = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const flags = new Set<string>();
  const positionals: string[] = [];
  const most = spec.positionals ?? 0;
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i];
    if (arg === '--' && most > 0) {
      for (const rest of argv.slice(i + 1)) {
        if (positionals.length >= most) throw new UsageError(`unknown argument "${rest}"`);
        positionals.push(rest);
      }
      break;
    }
    let inline: string | undefined;
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0) {
      inline = arg.slice(eq + 1);
      arg = arg.slice(0, eq);
    }
    if (flagSet.has(arg) && inline === undefined) flags.add(arg);
    else if (listSet.has(arg)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      const list = lists.get(arg);
      if (list) list.push(value);
      else lists.set(arg, [value]);
    } else if (optionSet.has(arg)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      const before = values.get(arg);
      if (before !== undefined && before !== value)
        throw new UsageError(`${arg} is given twice with different values ("${before}" and "${value}"): give it once`);
      values.set(arg, value);
    } else if ((arg === '-' || !arg.startsWith('-')) && positionals.length < most) positionals.push(arg);
    else throw new UsageError(`unknown argument "${argv[i]}"`);
  }
  return { values, flags, positionals, lists };
}

export function wantsHelp(a: ParsedArgs): boolean {
  return a.flags.has('--help') || a.flags.has('-h');
}

export function numberOption(a: ParsedArgs, flag: string, fallback: number, min: number, max = Infinity): number {
  const raw = a.values.get(flag);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max)
    throw new UsageError(
      `${flag} must be a number ${max === Infinity ? `>= ${min}` : `from ${min} to ${max}`}, got "${raw}"`,
    );
  return n;
}

export interface BackendArgs {
  baseUrl: string;
  directory: string;
}

export function backendArgs(a: ParsedArgs): BackendArgs {
  const baseUrlRaw = a.values.get('--base-url');
  if (!baseUrlRaw) throw new UsageError('--base-url is required');
  const directory = a.values.get('--directory');
  if (!directory || directory.trim() === '') throw new UsageError('--directory is required');
  return cliBackend(baseUrlRaw, directory);
}

/**
 * --base-url and the directory checked by the one backend normalizer (src/core/config/backends.ts),
 * as the editor's and the watch config's backends are; `baseUrl` is the backend's key (the
 * normalized URL with its trailing slash). A UsageError names the flag.
 */
export function cliBackend(baseUrlRaw: string, directory: string): BackendArgs {
  return { baseUrl: cliBackendConfig({ baseUrl: baseUrlRaw, directory }, {}).key, directory };
}

/**
 * The CLI's backend as the one normalizer reads it: --base-url, the directory, the surface of a
 * stock opencode server from SESSION_OPS_SURFACE (auto, api or legacy; default auto) and the
 * password's reference (SESSION_OPS_PASSWORD, the user SESSION_OPS_USERNAME, default "opencode").
 * A UsageError names the flag or variable.
 */
export function cliBackendConfig(b: BackendArgs, env: Record<string, string | undefined>): BackendConfig {
  const surface = env.SESSION_OPS_SURFACE === '' ? undefined : env.SESSION_OPS_SURFACE;
  const entry = {
    baseUrl: b.baseUrl,
    directories: [b.directory],
    ...(surface === undefined ? {} : { surface }),
    ...(env.SESSION_OPS_USERNAME ? { username: env.SESSION_OPS_USERNAME } : {}),
    passwordEnv: 'SESSION_OPS_PASSWORD',
  };
  const r = normalizeBackend(entry, { directories: [], auth: 'entry' });
  if (r.ok) return r.backend;
  const { field, message } = r.problem;
  if (field === 'baseUrl') throw new UsageError(`invalid --base-url: ${message}`);
  if (field === 'surface') throw new UsageError('SESSION_OPS_SURFACE must be auto, api or legacy');
  throw new UsageError(`--directory: ${message}`);
}

/** The client for the common flags (cliBackendConfig); the password is read from SESSION_OPS_PASSWORD only. */
export function clientFor(
  b: BackendArgs,
  env: Record<string, string | undefined>,
  extra: { timeoutMs?: number; clock?: Clock; marks?: QuotaMarkBook } = {},
): BackendClient {
  const backend = cliBackendConfig(b, env);
  const auth = backend.auth;
  const username = auth && auth.from === 'env' ? auth.username : DEFAULT_USERNAME;
  const password = auth && auth.from === 'env' ? env[auth.variable] : undefined;
  return new BackendClient({
    surface: backend.surface ?? 'auto',
    baseUrl: b.baseUrl,
    username,
    password: password && password !== '' ? password : undefined,
    timeoutMs: extra.timeoutMs,
    clock: extra.clock,
    ...(extra.marks ? { marks: extra.marks } : {}),
  });
}

/**
 * Runs a read-only command's body with its client and closes the client after; a BackendError
 * prints "session-ops NAME: cannot read the backend: ..." and exits 1.
 */
export async function readingBackend(
  name: string,
  client: BackendClient,
  io: { stderr: (text: string) => void },
  body: () => Promise<number>,
): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof BackendError) {
      io.stderr(`session-ops ${name}: cannot read the backend: ${err.message}\n`);
      return EXIT.failed;
    }
    throw err;
  } finally {
    await client.close();
  }
}

export const BACKEND_OPTIONS = ['--base-url', '--directory'];

export const ENVIRONMENT_HELP = `Environment:
  SESSION_OPS_PASSWORD      HTTP Basic password (stock opencode: OPENCODE_SERVER_PASSWORD)
  SESSION_OPS_USERNAME      HTTP Basic user (default "opencode")
${MARK_STORE_HELP}`;
