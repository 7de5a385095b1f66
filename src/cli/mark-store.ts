// The CLI's quota marks across runs. Stock opencode has no quota objects: the client keeps the
// walls it saw as marks (src/core/backend/quota-marks.ts). Each `session-ops` run is a new
// process, so without a store a wall that `status` saw in one session would not stop `wake` of
// another session from choosing that provider in the next run. One JSON file per backend base URL
// in the state directory holds provider ids, times and categories only (nothing secret); it is read
// at the start of status, wake, recover and dispatch and merged back at the end (re-read first, so
// that runs in parallel do not lose each other's marks).
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { QuotaMarkBook, type QuotaMarkBookOptions } from '../core/backend/quota-marks';
import type { EpochMs } from '../core/model';
import { stateDir } from '../core/state/state-dir';
import { describeError } from '../core/error-message';

export { stateDir };

/** A store file larger than this is not read (it holds a few providers: a few hundred bytes). */
export const MARK_STORE_MAX_BYTES = 256 * 1024;

export const MARK_STORE_HELP = `  SESSION_OPS_STATE_DIR     where quota marks seen on stock opencode are kept between runs
                            (default $XDG_STATE_HOME/session-ops, else $HOME/.local/state/session-ops;
                            empty, or none of the three set: this run's marks only)`;

/** The store file of a backend (by its normalized base URL). */
export function markStorePath(dir: string, baseUrl: string): string {
  const digest = createHash('sha256').update(baseUrl).digest('hex').slice(0, 16);
  return path.join(dir, `quota-marks-${digest}.json`);
}

export interface MarkStore {
  /** The book the run's client uses: the stored marks, then what the run sees. */
  readonly book: QuotaMarkBook;
  /** The store file, or null when off. */
  readonly file: string | null;
  /** What went wrong reading it (the run goes on with no stored marks). */
  readonly warning: string | null;
  /** Merges the run's marks into the file; returns a warning when it could not be written. */
  save(): Promise<string | null>;
}

export async function openMarkStore(
  baseUrl: string,
  env: Record<string, string | undefined>,
  now: () => EpochMs,
  options: QuotaMarkBookOptions = {},
): Promise<MarkStore> {
  const dir = stateDir(env);
  const book = new QuotaMarkBook(now, options);
  if (!dir) return { book, file: null, warning: null, save: async () => null };
  const file = markStorePath(dir, baseUrl);
  const first = await readStore(file, now, options);
  if (first.book) book.merge(first.book);
  return {
    book,
    file,
    warning: first.warning,
    async save() {
      try {
        // Re-read: another run may have written since this one started.
        const current = await readStore(file, now, options);
        const merged = current.book ?? new QuotaMarkBook(now, options);
        merged.merge(book);
        const state = { baseUrl, ...merged.toState() };
        await mkdir(dir, { recursive: true, mode: 0o700 });
        const tmp = `${file}.${process.pid}.tmp`;
        await writeFile(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
        await rename(tmp, file);
        return null;
      } catch (err) {
        return `quota marks not saved to ${file}: ${describeError(err)}`;
      }
    },
  };
}

async function readStore(
  file: string,
  now: () => EpochMs,
  options: QuotaMarkBookOptions,
): Promise<{ book: QuotaMarkBook | null; warning: string | null }> {
  try {
    const info = await stat(file);
    if (info.size > MARK_STORE_MAX_BYTES)
      return { book: null, warning: `${file} is ${info.size} bytes (over ${MARK_STORE_MAX_BYTES}): not read` };
    return {
      book: QuotaMarkBook.fromState(JSON.parse(await readFile(file, 'utf8')) as unknown, now, options),
      warning: null,
    };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { book: null, warning: null };
    return {
      book: null,
      warning: `${file} could not be read (${describeError(err)}): starting with no stored quota marks`,
    };
  }
}

/**
 * Runs a command with the backend's stored quota marks: the read warning and the save warning go
 * to stderr prefixed by the command; the marks are saved whatever the command's outcome.
 */
export async function withMarkStore<T>(
  command: string,
  baseUrl: string,
  io: { env: Record<string, string | undefined>; stderr: (text: string) => void },
  now: () => EpochMs,
  options: QuotaMarkBookOptions,
  run: (book: QuotaMarkBook) => Promise<T>,
): Promise<T> {
  const store = await openMarkStore(baseUrl, io.env, now, options);
  if (store.warning) io.stderr(`session-ops ${command}: warning: ${store.warning}\n`);
  try {
    return await run(store.book);
  } finally {
    const warning = await store.save();
    if (warning) io.stderr(`session-ops ${command}: warning: ${warning}\n`);
  }
}
