// The audit trail (issue 32 item 3): every act, by a token of the daemon's API, by automatic mode or
// by a one-shot CLI action, appended as one JSON line to audit.jsonl in the state directory. The
// file is append-only; above `maxBytes` it is rotated (audit.jsonl -> audit.1.jsonl -> ... ->
// audit.<keep>.jsonl, the oldest dropped), so it never grows without bound. Appends of one process
// are written one after another; each is one write of one line with O_APPEND, so lines of several
// processes (the daemon, a CLI run) never interleave. Read back oldest first, filtered by session
// and time; a line that does not parse is skipped (counted), never fatal.
import { createReadStream } from 'node:fs';
import { appendFile, mkdir, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';

export type AuditWhoKind = 'token' | 'automatic' | 'cli';

export interface AuditEntry {
  /** ISO 8601. */
  at: string;
  who: { kind: AuditWhoKind; name: string };
  action: string;
  backend: string;
  directory: string;
  sessionId: string;
  verdict: string | null;
  evidence: unknown;
  model: string | null;
  prompt: { sha256: string; firstLine: string } | null;
  outcome: { code: string; message: string; sent: boolean | 'unknown' };
}

export interface AuditQuery {
  sessionId: string | null;
  /** Epoch ms, inclusive; null: no bound. */
  since: number | null;
  until: number | null;
  /** The newest `limit` matching entries are returned (oldest first). */
  limit: number;
}

export const AUDIT_FILE = 'audit.jsonl';
export const DEFAULT_AUDIT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_AUDIT_KEEP = 3;
/** A longer line (a corrupt file) is skipped when read. */
const MAX_LINE_CHARS = 256 * 1024;

export interface AuditLogOptions {
  dir: string;
  maxBytes?: number;
  keep?: number;
}

export class AuditLog {
  readonly file: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  private writing: Promise<void> = Promise.resolve();
  private readonly listeners = new Set<(e: AuditEntry) => void>();

  constructor(private readonly o: AuditLogOptions) {
    this.file = path.join(o.dir, AUDIT_FILE);
    this.maxBytes = o.maxBytes ?? DEFAULT_AUDIT_MAX_BYTES;
    this.keep = o.keep ?? DEFAULT_AUDIT_KEEP;
  }

  /** Every entry appended by this process (the daemon's `outcome` events). */
  onDidAppend(listener: (e: AuditEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Appends one entry (after the ones before it); a warning when it could not be written. */
  append(entry: AuditEntry): Promise<string | null> {
    const line = `${JSON.stringify(entry)}\n`;
    for (const l of [...this.listeners]) l(entry);
    const result = this.writing.then(() => this.write(line));
    this.writing = result.then(() => undefined);
    return result;
  }

  /** Settles when every append so far is written. */
  flush(): Promise<void> {
    return this.writing;
  }

  private async write(line: string): Promise<string | null> {
    try {
      await mkdir(this.o.dir, { recursive: true, mode: 0o700 });
      const size = await stat(this.file).then(
        (s) => s.size,
        () => 0,
      );
      if (size > 0 && size + Buffer.byteLength(line) > this.maxBytes) await this.rotate();
      await appendFile(this.file, line, { encoding: 'utf8', mode: 0o600, flag: 'a' });
      return null;
    } catch (err) {
      return `the audit trail ${this.file} could not be written: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
    }
  }

  /** audit.jsonl -> audit.1.jsonl, audit.1 -> audit.2 ...; the one beyond `keep` is dropped. */
  private async rotate(): Promise<void> {
    await unlink(this.rotated(this.keep)).catch(() => undefined);
    for (let i = this.keep - 1; i >= 1; i--) await rename(this.rotated(i), this.rotated(i + 1)).catch(() => undefined);
    if (this.keep >= 1) await rename(this.file, this.rotated(1)).catch(() => undefined);
    else await unlink(this.file).catch(() => undefined);
  }

  private rotated(i: number): string {
    return path.join(this.o.dir, `audit.${i}.jsonl`);
  }

  /** The files, oldest first. */
  files(): string[] {
    const out: string[] = [];
    for (let i = this.keep; i >= 1; i--) out.push(this.rotated(i));
    out.push(this.file);
    return out;
  }

  /** The matching entries, oldest first: the newest `limit` of them; `truncated` when more matched. */
  async query(q: AuditQuery): Promise<{ entries: AuditEntry[]; truncated: boolean; skipped: number }> {
    const kept: AuditEntry[] = [];
    let matched = 0;
    let skipped = 0;
    for (const file of this.files()) {
      let stream;
      try {
        await stat(file);
        stream = createReadStream(file, { encoding: 'utf8' });
      } catch {
        continue;
      }
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      try {
        for await (const line of lines) {
          if (line === '') continue;
          const e = line.length > MAX_LINE_CHARS ? null : parseEntry(line);
          if (!e) {
            skipped++;
            continue;
          }
          if (q.sessionId !== null && e.sessionId !== q.sessionId) continue;
          const t = Date.parse(e.at);
          if (q.since !== null && !(t >= q.since)) continue;
          if (q.until !== null && !(t <= q.until)) continue;
          matched++;
          kept.push(e);
          if (kept.length > q.limit) kept.shift();
        }
      } catch {
        // A file rotated away while it was read: what was read counts.
      } finally {
        lines.close();
        stream.destroy();
      }
    }
    return { entries: kept, truncated: matched > kept.length, skipped };
  }
}

function parseEntry(line: string): AuditEntry | null {
  try {
    const v = JSON.parse(line) as AuditEntry;
    if (!v || typeof v !== 'object' || typeof v.at !== 'string' || typeof v.sessionId !== 'string') return null;
    return v;
  } catch {
    return null;
  }
}
