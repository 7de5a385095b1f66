// The message ledger of a directory: sums each session's assistant messages (cost, tokens, how
// many) for a backend whose messages carry their own figures (capabilities.messageCost), off the
// liveness path. It runs after a sampling round's limit=1 reads and never changes them. A session
// is read whole once, when first seen, in pages (`limit`, then `before` = the cursor the previous
// page named, oldest page last); afterwards only when it moved (its newest message changed: a new
// id, or it finished), and then only the pages newer than the last message counted. Each round
// reads at most `pagesPerRound` pages, `concurrency` at a time: sessions that moved first, then
// unfinished first reads, then new sessions (most recently updated first), so 1,000 new sessions
// are counted over several rounds; until its first read is whole a session is pending (never 0).
//
// What it fills on each sample's session: when the list carries the session's totals (stock
// opencode) those stay and only `messages` comes from here; otherwise the whole figure does.
// An assistant message is final once it has a completion time or an error, or once a newer
// assistant message exists; a message not final is counted as last read and read again when the
// session moves.
//
// Where the list carries the totals, a session that moved is not read again when the round brings
// the event stream's announcements (`message.updated`, read anyway by the monitor) and the stream
// stayed open since the session was last counted: its new messages are counted from them. A read
// of pages happens only when the stream was not open all that time, or when the newest message
// the liveness read saw was not announced yet.
import { systemClock } from '../clock';
import { BackendError } from '../backend/errors';
import type { MessageFigures, MessagePage } from '../backend/wire/message-page';
import type { BackendCapabilities, MessageSnapshot, SessionCost, SessionSample, SessionSnapshot } from '../model';
import { describeError } from '../error-message';
import { joinKey } from '../keys';
import { addCosts } from './rollup';

/** What the ledger needs of a backend client. */
export interface LedgerBackend {
  capabilities?: BackendCapabilities | null;
  messagePage?(
    directory: string,
    sessionId: string,
    page: { limit: number; before?: string | null },
    opts?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<MessagePage>;
}

/** What the event stream announced (src/core/backend/activity.ts), as the ledger reads it. */
export interface MessageAnnouncements {
  /** The same object while the stream stayed open and announced every message of the session; null otherwise. */
  continuity(sessionId: string): object | null;
  /** A read of the session's pages starts now. */
  resume(sessionId: string): void;
  /** Assistant messages announced newer than `afterId` (all: null), oldest first. */
  announcedAfter(sessionId: string, afterId: string | null): MessageFigures[];
  /** The latest announcement of one message. */
  announcement(sessionId: string, messageId: string): MessageFigures | undefined;
  /** Forget the announcements up to `upToId` (counted). */
  settle(sessionId: string, upToId: string | null): void;
}

/** The round as the ledger reads it: its samples and, for a whole round, every listed session. */
export interface LedgerRound {
  samples: readonly SessionSample[];
  /** Every session the list named (forgets the others); absent for a partial round. */
  listed?: readonly string[] | null;
  /** The event stream's announcements, when a stream runs for this directory. */
  announced?: MessageAnnouncements | null;
}

export interface MessageLedgerOptions {
  /** Pages read per round at most (every session together). Default 64. */
  pagesPerRound?: number;
  /** Pages read at once. Default 4. */
  concurrency?: number;
  /** Messages per page of a first read (halved while a page is over the body cap). Default 20. */
  pageLimit?: number;
  /** Messages in the first page of a read after a move (doubling per page up to pageLimit). Default 4. */
  movedLimit?: number;
  /** Time a round's reads may take in all: no page starts after it, each page's deadline ends by it. Default 10 s. */
  timeBudgetMs?: number;
  now?: () => number;
}

/** What one round of the ledger did. */
export interface LedgerReport {
  /** Page requests made. */
  pages: number;
  /** Sessions that moved and were counted from the event stream's announcements, without a read. */
  announced: number;
  /** Sessions still waiting for (part of) a read when the round's page budget ran out. */
  deferred: number;
  warnings: string[];
}

export const LEDGER_DEFAULTS = {
  pagesPerRound: 64,
  concurrency: 4,
  pageLimit: 20,
  movedLimit: 4,
  timeBudgetMs: 10_000,
} as const;

/** Failures that may pass by themselves: the read goes on from the same page next round. */
const TRANSIENT = new Set(['timeout', 'network', 'refused', 'server']);

const ZERO: SessionCost = {
  usd: 0,
  tokens: { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
  messages: 0,
};

/** One read of a session, newest page first, down to what an earlier read counted. */
interface Chain {
  /** The session's newest message when the read started (what "moved" compares to). */
  signature: string;
  /** The newest message id of the first page. */
  top: string | null;
  /** The next older page; null before the first page. */
  cursor: string | null;
  /** The oldest id read so far (a page must be older: a backend ignoring `before` is an error). */
  oldest: string | null;
  limit: number;
  /** Final assistant messages newer than the counted ones. */
  sum: SessionCost;
  /** Not-final assistant messages newer than the counted ones. */
  open: Map<string, MessageFigures>;
  /** Open messages of the earlier read, read again. */
  reread: Map<string, MessageFigures>;
  /** An assistant message was read: every older one is final. */
  sawAssistant: boolean;
  /** An assistant message carried no readable figures. */
  unreported: boolean;
  /** The event stream's continuity when the read started (null: no stream, or not open). */
  stream: object | null;
}

interface Entry {
  /** A first read was committed. */
  counted: boolean;
  /** The newest message id counted (null: none yet). */
  top: string | null;
  /** Final assistant messages up to `top`. */
  base: SessionCost;
  /** Assistant messages up to `top` that were not final when read. */
  open: Map<string, MessageFigures>;
  signature: string | null;
  chain: Chain | null;
  /** The signature a read failed at: not tried again until the session moves. */
  failedAt: string | null;
  unreported: boolean;
  /** The stream's continuity under which every message newer than `top` is announced (null: none). */
  stream: object | null;
}

/** The newest message as the liveness read saw it: a new id, or a message that finished, is a move. */
export function messageSignature(newest: MessageSnapshot | null): string {
  return newest ? joinKey(newest.id, String(newest.completedAt ?? ''), newest.finish ?? '') : '';
}

export class MessageLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly options: Required<Omit<MessageLedgerOptions, 'now'>>;
  private readonly now: () => number;

  constructor(options: MessageLedgerOptions = {}) {
    const whole = (v: number | undefined, d: number) => Math.max(1, Math.floor(v ?? d));
    this.options = {
      pagesPerRound: whole(options.pagesPerRound, LEDGER_DEFAULTS.pagesPerRound),
      concurrency: whole(options.concurrency, LEDGER_DEFAULTS.concurrency),
      pageLimit: whole(options.pageLimit, LEDGER_DEFAULTS.pageLimit),
      movedLimit: whole(options.movedLimit, LEDGER_DEFAULTS.movedLimit),
      timeBudgetMs: whole(options.timeBudgetMs, LEDGER_DEFAULTS.timeBudgetMs),
    };
    this.now = options.now ?? systemClock.now;
  }

  /** Sessions known to the ledger (counted or not). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Reads what the round's page budget allows and fills each sample's session with its figures
   * (or `costPending`). A failed read is a warning, never a failed round; only an abort throws.
   */
  async update(
    client: LedgerBackend,
    directory: string,
    round: LedgerRound,
    opts: { signal?: AbortSignal } = {},
  ): Promise<LedgerReport> {
    const report: LedgerReport = { pages: 0, announced: 0, deferred: 0, warnings: [] };
    const read = client.messagePage?.bind(client);
    if (!client.capabilities?.messageCost || !read) return report;
    if (round.listed) {
      const listed = new Set(round.listed);
      for (const id of this.entries.keys()) if (!listed.has(id)) this.entries.delete(id);
    }
    const work = this.plan(round, report);
    let budget = this.options.pagesPerRound;
    const deadline = this.now() + this.options.timeBudgetMs;
    const next = () => work.shift();
    const worker = async () => {
      for (let job = next(); job; job = next()) {
        const { sample, entry } = job;
        const id = sample.session.id;
        try {
          for (let left = deadline - this.now(); entry.chain && budget > 0 && left > 0; left = deadline - this.now()) {
            budget--;
            report.pages++;
            await this.readPage(read, directory, id, entry, { signal: opts.signal, timeoutMs: left });
          }
        } catch (err) {
          if (err instanceof BackendError && err.code === 'aborted') throw err;
          if (err instanceof BackendError && err.code === 'not-found') {
            this.entries.delete(id);
            continue;
          }
          report.warnings.push(`cost of session ${id} not summed: ${describeError(err)}`);
          if (!(err instanceof BackendError && TRANSIENT.has(err.code))) {
            entry.failedAt = entry.chain?.signature ?? null;
            entry.chain = null;
          }
        }
        if (entry.chain) report.deferred++;
      }
    };
    await Promise.all(Array.from({ length: this.options.concurrency }, worker));
    report.deferred += work.length;
    for (const sample of round.samples) {
      const entry = this.entries.get(sample.session.id);
      if (entry?.counted && !entry.chain) round.announced?.settle(sample.session.id, entry.top);
      this.apply(sample.session);
    }
    return report;
  }

  /**
   * The sessions to read this round, in order: moved, unfinished first reads, new (newest first).
   * A moved session whose new messages the stream announced is counted here, without a read.
   */
  private plan(round: LedgerRound, report: LedgerReport): Array<{ sample: SessionSample; entry: Entry; rank: number }> {
    const work: Array<{ sample: SessionSample; entry: Entry; rank: number }> = [];
    const announced = round.announced ?? null;
    for (const sample of round.samples) {
      const id = sample.session.id;
      const signature = messageSignature(sample.newest);
      let entry = this.entries.get(id);
      if (!entry) {
        entry = {
          counted: false,
          top: null,
          base: ZERO,
          open: new Map(),
          signature: null,
          chain: null,
          failedAt: null,
          unreported: false,
          stream: null,
        };
        this.entries.set(id, entry);
        if (sample.newest === null) {
          // No message at all: nothing to read.
          Object.assign(entry, { counted: true, signature });
          continue;
        }
      }
      let rank: number;
      if (entry.chain) rank = entry.counted ? 0 : 1;
      else if (entry.signature === signature || entry.failedAt === signature) continue;
      else if (announced && this.countAnnounced(entry, sample, announced)) {
        report.announced++;
        continue;
      } else {
        rank = entry.counted ? 0 : 2;
        announced?.resume(id);
        entry.chain = this.newChain(
          signature,
          entry.counted ? this.options.movedLimit : this.options.pageLimit,
          announced?.continuity(id) ?? null,
        );
      }
      work.push({ sample, entry, rank });
    }
    const updated = (s: SessionSnapshot) => s.updatedAt ?? -Infinity;
    return work.sort((a, b) => a.rank - b.rank || updated(b.sample.session) - updated(a.sample.session));
  }

  /**
   * Counts a moved session's new messages from the stream's announcements: only when the list
   * carries its totals (only the count comes from here), the stream stayed open since the session
   * was counted, and the newest message the liveness read saw is announced (else false: read).
   */
  private countAnnounced(entry: Entry, sample: SessionSample, announced: MessageAnnouncements): boolean {
    const id = sample.session.id;
    if (!entry.counted || !sample.session.cost || !entry.stream || announced.continuity(id) !== entry.stream)
      return false;
    const news = announced.announcedAfter(id, entry.top);
    const newestAnnounced = news.length > 0 ? news[news.length - 1].id : entry.top;
    const newest = sample.newest;
    if (newest?.role === 'assistant' && (newestAnnounced === null || newest.id > newestAnnounced)) return false;
    const messages = [...news];
    for (const openId of entry.open.keys()) {
      const again = announced.announcement(id, openId);
      if (again) messages.push(again);
    }
    messages.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const chain = this.newChain(messageSignature(newest), this.options.pageLimit, entry.stream);
    chain.top = news.length > 0 ? newestAnnounced : null;
    this.absorb(entry, chain, messages);
    this.commit(entry, chain);
    return true;
  }

  private newChain(signature: string, limit: number, stream: object | null): Chain {
    return {
      signature,
      top: null,
      cursor: null,
      oldest: null,
      limit: Math.min(limit, this.options.pageLimit),
      sum: ZERO,
      open: new Map(),
      reread: new Map(),
      sawAssistant: false,
      unreported: false,
      stream,
    };
  }

  /** One page of the entry's chain; commits the chain when it reached what was counted before. */
  private async readPage(
    read: NonNullable<LedgerBackend['messagePage']>,
    directory: string,
    sessionId: string,
    entry: Entry,
    call: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<void> {
    const chain = entry.chain!;
    let page: MessagePage;
    try {
      page = await read(directory, sessionId, { limit: chain.limit, before: chain.cursor }, call);
    } catch (err) {
      // A page over the body cap is read again in halves (down to one message).
      if (err instanceof BackendError && err.code === 'too-large' && chain.limit > 1) {
        chain.limit = Math.max(1, Math.floor(chain.limit / 2));
        return;
      }
      throw err;
    }
    const messages = page.messages;
    if (chain.oldest !== null && messages.length > 0 && messages[messages.length - 1].id >= chain.oldest)
      throw new Error(
        `the backend answered a page that is not older than the one before it (before=${chain.cursor}): it does not page with before`,
      );
    if (messages.length > 0) {
      chain.top ??= messages[messages.length - 1].id;
      chain.oldest = messages[0].id;
    }
    const reached = this.absorb(entry, chain, messages);
    chain.limit = Math.min(chain.limit * 2, this.options.pageLimit);
    chain.cursor = page.next;
    if (reached || page.next === null || messages.length === 0) this.commit(entry, chain);
  }

  /**
   * Takes messages (oldest first) into the chain, newest first: new assistant messages into its sum
   * or its open ones, open ones of the earlier read into `reread`. True when they reach back to
   * what the earlier read must see again (its oldest open message, else its newest).
   */
  private absorb(entry: Entry, chain: Chain, messages: readonly MessageFigures[]): boolean {
    const bound = entry.open.size > 0 ? [...entry.open.keys()].sort()[0] : entry.top;
    let reached = false;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      if (bound !== null && m.id <= bound) reached = true;
      if (entry.top !== null && m.id <= entry.top) {
        if (entry.open.has(m.id)) chain.reread.set(m.id, { ...m, final: m.final || chain.sawAssistant });
        continue;
      }
      if (!m.assistant) continue;
      const final = m.final || chain.sawAssistant;
      chain.sawAssistant = true;
      // A message still running may carry no figures yet (the /api engine writes them when the
      // step ends): it stays open, read again when the session moves. Only a final message
      // without figures leaves the session's cost unreported.
      if (final && !m.cost) chain.unreported = true;
      else if (final && m.cost) chain.sum = addCosts(chain.sum, m.cost);
      else chain.open.set(m.id, running(m));
    }
    return reached;
  }

  private commit(entry: Entry, chain: Chain): void {
    let base = addCosts(entry.base, chain.sum);
    const open = new Map<string, MessageFigures>();
    for (const [id, old] of entry.open) {
      const again = chain.reread.get(id) ?? { ...old, final: old.final || chain.sawAssistant };
      if (again.final && again.cost) base = addCosts(base, again.cost);
      else if (again.final) chain.unreported = true;
      else open.set(id, running(again));
    }
    for (const [id, m] of chain.open) open.set(id, m);
    entry.base = base;
    entry.open = open;
    entry.top = chain.top ?? entry.top;
    entry.signature = chain.signature;
    entry.counted = true;
    entry.unreported ||= chain.unreported;
    entry.failedAt = null;
    entry.stream = chain.stream;
    entry.chain = null;
  }

  /** The session's figures: the list's totals with the count, or the sum; pending until counted. */
  private apply(session: SessionSnapshot): void {
    const entry = this.entries.get(session.id);
    if (!entry?.counted) {
      session.costPending = true;
      if (session.cost) session.cost = { ...session.cost, messages: null };
      return;
    }
    session.costPending = false;
    let sum = entry.base;
    for (const m of entry.open.values()) if (m.cost) sum = addCosts(sum, m.cost);
    if (session.cost) session.cost = { ...session.cost, messages: sum.messages };
    else session.cost = entry.unreported ? null : sum;
  }
}

/** A message still running, counted with its figures so far (none yet: zero, one message). */
function running(m: MessageFigures): MessageFigures {
  return m.cost
    ? m
    : {
        ...m,
        cost: { usd: 0, tokens: { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 }, messages: 1 },
      };
}
