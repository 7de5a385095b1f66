// What the action commands (abort, wake, recover, dispatch, compose, report) share: the exit
// codes, the injectable I/O, the session positional, the model flag, the inventory sources and
// the context of an executor.
import { readFile, writeFile } from 'node:fs/promises';
import type { BackendClient } from '../core/backend/client';
import { gitInventory } from '../core/actions/git-inventory';
import { backendInventory, type WorktreeInventory } from '../core/actions/inventory';
import { parseModelRef } from '../core/actions/model-choice';
import { systemClock, type ActionContext, type Clock } from '../core/actions/context';
import type { ModelRef } from '../core/model';
import { sessionLockerFor, type SessionLocker } from '../core/operations/lock';
import { stateDir } from '../core/operations/state-dir';
import { UsageError, type ParsedArgs } from './args';
import { parseProviderScope, type ProviderScope } from '../core/health/provider-choice';

/** Exit codes shared by every action. */
export const EXIT = {
  done: 0,
  /** Backend error, or not confirmed in time. */
  failed: 1,
  usage: 2,
  /** Refused by a safety rule; nothing sent. */
  refused: 3,
  /** Wait for a provider reset; nothing sent. */
  waitForReset: 4,
  /** Escalated to a human; nothing sent. */
  escalated: 5,
} as const;

export const EXIT_HELP = `Exit codes: 0 done, 1 backend error or not confirmed in time, 2 usage,
3 refused by a safety rule (nothing sent), 4 wait-for-reset (nothing sent), 5 escalated (nothing sent).`;

export interface ActionIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  readFile: (path: string) => Promise<string>;
  writeFile: (path: string, text: string) => Promise<void>;
  readStdin: () => Promise<string>;
  clock: Clock;
  /** Inventory sources after the backend's own (default: git in the directory when local). */
  localInventory: WorktreeInventory[];
}

export function defaultActionIo(): ActionIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    readFile: (p) => readFile(p, 'utf8'),
    writeFile: (p, t) => writeFile(p, t, 'utf8'),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    clock: systemClock,
    localInventory: [gitInventory()],
  };
}

export function sessionArg(a: ParsedArgs, command: string): string {
  const id = a.positionals[0];
  if (!id) throw new UsageError(`${command} needs the SESSION id`);
  return id;
}

export function modelArg(a: ParsedArgs): ModelRef | null {
  const raw = a.values.get('--model');
  if (raw === undefined) return null;
  const m = parseModelRef(raw);
  if (!m) throw new UsageError(`--model must be PROVIDER/MODEL, got "${raw}"`);
  return m;
}

/** --providers a,b: the providers recovery and wake may choose (absent: any connected one; "" : the configured ones, without the built-in opencode). */
export function providersArg(a: ParsedArgs): ProviderScope | null {
  const raw = a.values.get('--providers');
  if (raw === undefined) return null;
  try {
    return parseProviderScope(raw);
  } catch (err) {
    throw new UsageError(`--providers: ${(err as Error).message}`);
  }
}

export const PROVIDERS_HELP = `  --providers A,B       only these providers may be chosen for the model (default: any connected
                        one; "" means the configured ones, without the built-in opencode)`;

export async function readTextFile(io: ActionIo, flag: string, path: string): Promise<string> {
  try {
    return await io.readFile(path);
  } catch (err) {
    throw new UsageError(`${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

export function inventorySources(client: BackendClient, io: ActionIo): WorktreeInventory[] {
  return [backendInventory(client), ...io.localInventory];
}

/** The prompt builder's inputs every composing command takes from the same flags. */
export function promptInputs(a: ParsedArgs, b: { directory: string }, client: BackendClient, io: ActionIo) {
  return {
    now: io.clock.now,
    inventory: inventorySources(client, io),
    worktree: a.values.get('--worktree') ?? b.directory,
    authority: {
      ticket: a.values.get('--ticket'),
      orchestrator: a.values.get('--orchestrator'),
      label: a.values.get('--label'),
      env: io.env,
      holdsAuthority: a.flags.has('--i-hold-authority'),
    },
    resume: a.values.get('--resume'),
    pullRequest: a.values.get('--pr'),
  };
}

export function contextFor(
  client: BackendClient,
  directory: string,
  io: ActionIo,
  signal?: AbortSignal,
): ActionContext {
  return { backend: client, directory, clock: io.clock, signal, locker: lockerFor(io.env) };
}

const lockers = new Map<string, SessionLocker>();

/** The per-session lock of the state directory every Session Ops process on this machine shares. */
export function lockerFor(env: Record<string, string | undefined>): SessionLocker {
  const dir = stateDir(env);
  const key = dir ?? '';
  let locker = lockers.get(key);
  if (!locker) lockers.set(key, (locker = sessionLockerFor(dir)));
  return locker;
}

/** Server-supplied text never reaches the terminal with control characters. */
export function clean(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]+/g, ' ');
}

export function isoOrUnknown(at: number | null): string {
  return at === null ? 'unknown' : new Date(at).toISOString();
}

/** Runs a command body: a UsageError prints the usage and exits 2. */
export async function withUsage(
  io: ActionIo,
  command: string,
  usage: string,
  body: () => Promise<number>,
): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`session-ops ${command}: ${err.message}\n\n${usage}\n`);
      return EXIT.usage;
    }
    throw err;
  }
}
