// A small JSON file in the state directory that several processes share (editor windows, CLI
// runs, the daemon). Written atomically (a temporary file renamed over it), merged with what is
// on disk under a lock (another writer's changes are never lost), bounded in size. A file that
// cannot be read or parsed is a warning and a fresh start, never a crash.
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { FileSessionLocker, type SessionLocker } from '../state/session-locker';

/** How a state is read from JSON (dropping what is malformed), merged and started empty. */
export interface StateCodec<T> {
  empty(): T;
  /** The state in `json`; throws when it is not this state at all. */
  parse(json: unknown): T;
  /** Disk and memory merged (both writers' changes kept). */
  merge(disk: T, mine: T): T;
}

export interface StateFileResult<T> {
  state: T;
  /** What went wrong (the state is then a fresh start, or what this process had). */
  warning: string | null;
}

/** A state file larger than this is not read (the operator's files hold a few KB). */
export const STATE_FILE_MAX_BYTES = 1024 * 1024;

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class JsonStateFile<T> {
  private readonly locker: SessionLocker;

  constructor(
    readonly file: string,
    private readonly codec: StateCodec<T>,
    options: { locker?: SessionLocker; maxBytes?: number } = {},
  ) {
    this.locker = options.locker ?? new FileSessionLocker(path.dirname(file));
    this.maxBytes = options.maxBytes ?? STATE_FILE_MAX_BYTES;
  }

  private readonly maxBytes: number;

  /** The state on disk; a missing file is the empty state, a broken one a warning and the empty state. */
  async load(): Promise<StateFileResult<T>> {
    try {
      const info = await stat(this.file);
      if (info.size > this.maxBytes)
        return {
          state: this.codec.empty(),
          warning: `${this.file} is ${info.size} bytes (over ${this.maxBytes}): not read, starting afresh`,
        };
      return { state: this.codec.parse(JSON.parse(await readFile(this.file, 'utf8')) as unknown), warning: null };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: this.codec.empty(), warning: null };
      return {
        state: this.codec.empty(),
        warning: `${this.file} could not be read (${messageOf(err)}): starting afresh`,
      };
    }
  }

  /**
   * Merges `mine` into the file (under the file's lock: re-read, merge, write a temporary file,
   * rename it over the file) and returns the merged state. Never throws: a failure is the warning,
   * with `mine` as the state.
   */
  async save(mine: T): Promise<StateFileResult<T>> {
    try {
      await mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const locked = await this.locker.withSessionLock(
        `state:${path.basename(this.file)}`,
        { purpose: 'save operator state' },
        async () => {
          const disk = await this.load();
          const merged = this.codec.merge(disk.state, mine);
          const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
          try {
            await writeFile(tmp, `${JSON.stringify(merged)}\n`, { mode: 0o600 });
            await rename(tmp, this.file);
          } finally {
            await rm(tmp, { force: true });
          }
          return { state: merged, warning: disk.warning };
        },
      );
      if (!locked.acquired) return { state: mine, warning: `${this.file} not saved: ${locked.reason}` };
      return locked.value;
    } catch (err) {
      return { state: mine, warning: `${this.file} not saved: ${messageOf(err)}` };
    }
  }
}
