// What the action commands (abort, wake, recover, dispatch, compose, report) share: the injectable
// I/O, the session positional, the model flag, the inventory sources and the context of an executor.
import { open, writeFile } from 'node:fs/promises';
import type { BackendClient } from '../core/backend/client';
import { gitInventory } from '../core/actions/git-inventory';
import { backendInventory, type WorktreeInventory } from '../core/actions/inventory';
import { parseModelRef } from '../core/actions/model-choice';
import type { ActionContext } from '../core/actions/executor-context';
import { systemClock, type Clock } from '../core/clock';
import type { ModelRef } from '../core/model';
import { sessionLockerFor, type SessionLocker } from '../core/state/session-locker';
import type { OperatorLog } from '../core/operations/operator';
import { stateDir } from '../core/state/state-dir';
import { UsageError, type ParsedArgs } from './args';
import type { CommandIo } from './command';
import { parseProviderScope, type ProviderScope } from '../core/health/provider-choice';
import { describeError } from '../core/error-message';
import { DEFAULT_MONITOR_SETTINGS, PROMPT_MAX_KIB_CEILING } from '../core/settings/operator-settings';
import { decodeUtf8, sizeText, utf8Length, withoutBom } from '../core/utf8';

export interface ActionIo extends CommandIo {
  env: Record<string, string | undefined>;
  /**
   * The file's bytes, at most `maxBytes` of them (a longer file is cut there). A string is text
   * already decoded (a test's stand-in): only its leading BOM is dropped.
   */
  readFile: (path: string, maxBytes: number) => Promise<Uint8Array | string>;
  writeFile: (path: string, text: string) => Promise<void>;
  readStdin: () => Promise<string>;
  clock: Clock;
  /** Inventory sources after the backend's own (default: git in the directory when local). */
  localInventory: WorktreeInventory[];
  /** Where the operator's log line of each action goes (default nowhere: the command prints its own output). */
  operatorLog: OperatorLog;
}

export function defaultActionIo(): ActionIo {
  return {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    readFile: readAtMost,
    writeFile: (p, t) => writeFile(p, t, 'utf8'),
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    clock: systemClock,
    localInventory: [gitInventory()],
    operatorLog: () => undefined,
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
    throw new UsageError(`--providers: ${describeError(err)}`);
  }
}

export const PROVIDERS_HELP = `  --providers A,B       only these providers may be chosen for the model (default: any connected
                        one; "" means the configured ones, without the built-in opencode)`;

/** Reads at most `maxBytes` of a file (so a huge file or a device is never read whole). */
async function readAtMost(path: string, maxBytes: number): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(maxBytes);
    let filled = 0;
    while (filled < maxBytes) {
      const { bytesRead } = await handle.read(buffer, filled, maxBytes - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

const BOM_BYTES = 3;

/**
 * A prompt file's text (or a file composed into a prompt, like --facts), refused with a UsageError
 * (exit 2) before anything is sent when it cannot be read, is not UTF-8 (naming the offset of the
 * first invalid byte), or is larger than the prompt size cap (`maxBytes`, prompt.maxKiB). A
 * leading BOM is dropped.
 */
export async function readTextFile(
  io: ActionIo,
  flag: string,
  path: string,
  maxBytes: number = DEFAULT_MONITOR_SETTINGS.maxPromptBytes,
): Promise<string> {
  // One byte past the cap (and a BOM) tells a file above it without reading it whole.
  const limit = maxBytes + BOM_BYTES + 1;
  let raw: Uint8Array | string;
  try {
    raw = await io.readFile(path, limit);
  } catch (err) {
    throw new UsageError(`${flag} ${path}: ${(err as NodeJS.ErrnoException).code ?? describeError(err)}`);
  }
  const tooLarge = (size: string) =>
    new UsageError(
      `${flag} ${path} is ${size}, above the prompt size cap of ${sizeText(maxBytes)} (setting prompt.maxKiB; --max-prompt-kib raises it, up to ${PROMPT_MAX_KIB_CEILING}): nothing was sent`,
    );
  if (typeof raw !== 'string' && raw.length >= limit) throw tooLarge(`more than ${sizeText(maxBytes)}`);
  let text: string;
  if (typeof raw === 'string') text = withoutBom(raw);
  else {
    const decoded = decodeUtf8(raw);
    if (!decoded.ok) {
      const at = decoded.offset;
      const line = raw.subarray(0, at).filter((b) => b === 0x0a).length + 1;
      throw new UsageError(
        `${flag} ${path} is not UTF-8: invalid byte 0x${raw[at].toString(16).padStart(2, '0')} at byte offset ${at} (line ${line}); save it as UTF-8: nothing was sent`,
      );
    }
    text = decoded.text;
  }
  const bytes = utf8Length(text);
  if (bytes > maxBytes) throw tooLarge(`${sizeText(bytes)} (${bytes} bytes)`);
  return text;
}

export function inventorySources(client: BackendClient, io: ActionIo): WorktreeInventory[] {
  return [backendInventory(client), ...io.localInventory];
}

/** The flags every composing command reads the same way (undefined: not given). */
export interface PromptFlags {
  worktree: string | undefined;
  ticket: string | undefined;
  orchestrator: string | undefined;
  label: string | undefined;
  resume: string | undefined;
  pr: string | undefined;
  /** --i-hold-authority: the orchestrator the prompt speaks for holds the orchestrating authority. */
  holdsAuthority: boolean;
}

export function promptFlags(a: ParsedArgs): PromptFlags {
  return {
    worktree: a.values.get('--worktree'),
    ticket: a.values.get('--ticket'),
    orchestrator: a.values.get('--orchestrator'),
    label: a.values.get('--label'),
    resume: a.values.get('--resume'),
    pr: a.values.get('--pr'),
    holdsAuthority: a.flags.has('--i-hold-authority'),
  };
}

/** The prompt builder's inputs every composing command takes from the same flags. */
export function promptInputs(f: PromptFlags, b: { directory: string }, client: BackendClient, io: ActionIo) {
  return {
    now: io.clock.now,
    inventory: inventorySources(client, io),
    directory: b.directory,
    worktree: f.worktree ?? b.directory,
    todos: (sessionId: string) => client.todos(b.directory, sessionId),
    authority: {
      ticket: f.ticket,
      orchestrator: f.orchestrator,
      label: f.label,
      env: io.env,
      holdsAuthority: f.holdsAuthority,
    },
    resume: f.resume,
    pullRequest: f.pr,
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
