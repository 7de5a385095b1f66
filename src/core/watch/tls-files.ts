// The daemon's TLS certificate and key files, followed: a renewed pair (certbot, an ACME client, a
// secret mount) is taken without a restart. The files are looked at every `intervalMs` (their size,
// modification time and inode: a rename over them counts); when they changed, both are read
// (size-limited) and checked together (`tls.createSecureContext`: a certificate that does not match
// its key, or a file half written, is refused) before the server takes them
// (`server.setSecureContext`): a connection open already keeps its old session, a new one gets the
// new certificate. A refused pair is logged once and the pair in use is kept; it is tried again when
// the files change again.
import { readFile, stat } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { systemClock, type Clock } from '../clock';
import { describeError } from '../error-message';
import { Ticker } from '../timing';
import { MAX_PEM_BYTES } from './load';
import type { Logger } from './log';

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export const TLS_CHECK_MS = 30_000;

export interface TlsFileWatchOptions {
  clock?: Clock;
  intervalMs?: number;
}

export class TlsFileWatch {
  private readonly ticker: Ticker;
  /** The files' signature when last looked at (null: not yet). */
  private seen: string | null = null;
  private checking: Promise<'unchanged' | 'reloaded' | 'refused'> | null = null;

  constructor(
    private readonly files: TlsFiles,
    private readonly apply: (pair: TlsPair) => void,
    private readonly log: Logger,
    o: TlsFileWatchOptions = {},
  ) {
    this.ticker = new Ticker(o.intervalMs ?? TLS_CHECK_MS, () => void this.check(), o.clock ?? systemClock, {
      unref: true,
    });
  }

  /** Remembers the files as they are now (the pair the server started with) and starts looking. */
  async start(): Promise<void> {
    this.seen = await this.signature().catch(() => null);
    this.ticker.start();
  }

  stop(): void {
    this.ticker.stop();
  }

  /** Looks at the files now; takes a changed pair that checks out. One look at a time. */
  check(): Promise<'unchanged' | 'reloaded' | 'refused'> {
    this.checking ??= this.look().finally(() => (this.checking = null));
    return this.checking;
  }

  private async look(): Promise<'unchanged' | 'reloaded' | 'refused'> {
    let now: string;
    let problem: string | null = null;
    try {
      now = await this.signature();
    } catch (err) {
      now = 'unreadable';
      problem = `cannot read them: ${describeError(err)}`;
    }
    if (now === this.seen) return 'unchanged';
    // Logged and tried once per state of the files; a later change is tried again.
    this.seen = now;
    if (problem === null)
      try {
        const [cert, key] = await Promise.all([readPem(this.files.certFile), readPem(this.files.keyFile)]);
        // Throws on a certificate that does not match its key, or a PEM that is not whole.
        createSecureContext({ cert, key });
        this.apply({ cert, key });
        this.log('info', 'tls-reloaded', { certFile: this.files.certFile, keyFile: this.files.keyFile });
        return 'reloaded';
      } catch (err) {
        problem = describeError(err);
      }
    this.log('warn', 'tls-reload-failed', {
      certFile: this.files.certFile,
      keyFile: this.files.keyFile,
      reason: problem,
      kept: 'the certificate in use',
    });
    return 'refused';
  }

  private async signature(): Promise<string> {
    const [c, k] = await Promise.all([stat(this.files.certFile), stat(this.files.keyFile)]);
    return [c.size, c.mtimeMs, c.ino, k.size, k.mtimeMs, k.ino].join(':');
  }
}

async function readPem(file: string): Promise<Buffer> {
  const data = await readFile(file);
  if (data.length > MAX_PEM_BYTES) throw new Error(`${file} is larger than ${MAX_PEM_BYTES} bytes`);
  return data;
}
