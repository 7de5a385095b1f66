// The document scheduler: decides each open document's kind, and validates it after a short
// debounce: an edit that follows a quiet spell (none in the last debounceMs) is validated at once,
// an edit within a burst waits debounceMs after the last one (leading and trailing edge). A validation runs in slices of SLICE_MS (the kind's generator yields between steps),
// gives way to other messages between slices, and is abandoned when a newer version arrives, the
// document closes or its kind changes. A document past sessionOps.maxDocumentMB is not analysed: it gets one diagnostic. Cross-file checks of grouped kinds come from the group
// coordinator (server/groups.ts); diagnostics are published for the validated version only.
import { systemClock } from '../src/core/clock';
import type { Diagnostic } from '../src/core/diagnostics';
import { tooLargeDiagnostic } from '../src/core/document-size';
import { kindSettings, type ServerContext } from './server-context';
import { toLspDiagnostic } from './convert';
import type { DocState } from './documents';
import type { DocumentSession } from './kinds/types';
import { dropsShared } from './yamlOverlap';

/** How long one slice of long work runs before other messages are handled. */
export const SLICE_MS = 8;

/** What the scheduler needs from the group coordinator. */
export interface CrossFileChecks {
  /** Cross-file diagnostics for `st`; null when `isCurrent()` turned false meanwhile. */
  check(st: DocState, isCurrent: () => boolean): Promise<Diagnostic[] | null>;
  /** The diagnostics sent for `st` (JSON) changed. */
  published(st: DocState): void;
}

export class DocumentScheduler {
  constructor(
    private readonly ctx: ServerContext,
    private readonly cross: CrossFileChecks,
    /** A kind with route keys was seen: the workspace's route keys are wanted. */
    private readonly wantRouteKeys: () => void,
  ) {}

  /** Decides the document's kind; (re)validates when asked or when the kind changed. */
  classify(st: DocState, text: string, force: boolean): void {
    const kind = this.ctx.registry.kindFor(st.path, text, kindSettings(this.ctx));
    if (kind !== st.kind) {
      st.kind = kind;
      st.session = kind?.open(st.path);
      st.last = undefined;
      if (!kind) {
        if (st.published) void this.ctx.connection.sendDiagnostics({ uri: st.uri, diagnostics: [] });
        st.published = false;
        return;
      }
      this.schedule(st, 0);
      if (kind.routeKeysIn) this.wantRouteKeys();
      return;
    }
    if (force && kind) {
      if (st.last && st.lastVersion !== undefined) this.publish(st, st.lastVersion);
      else this.schedule(st, 0);
    }
  }

  /** Every open document again (settings or environment changed). */
  reclassifyAll(): void {
    for (const st of this.ctx.store.all()) {
      const text = this.ctx.store.text(st.uri);
      if (text !== undefined) this.classify(st, text, true);
    }
  }

  /** Validates every open document of a kind again (the size limit changed). */
  revalidateAll(): void {
    for (const st of this.ctx.store.all()) if (st.kind) this.schedule(st, 0);
  }

  /** Validates `st` after `delay` ms; without a delay, as an edit (at once unless within a burst of edits). */
  schedule(st: DocState, delay?: number): void {
    if (delay === undefined) {
      const now = performance.now();
      const debounce = this.ctx.settings.debounceMs;
      delay = st.editedAt !== undefined && now - st.editedAt < debounce ? debounce : 0;
      st.editedAt = now;
    }
    if (st.timer) systemClock.clearTimeout(st.timer);
    st.timer = systemClock.setTimeout(() => {
      st.timer = undefined;
      void this.validate(st);
    }, delay);
  }

  private async validate(st: DocState): Promise<void> {
    while (st.running) await st.running;
    const doc = this.ctx.store.documents.get(st.uri);
    const session = st.session;
    if (!doc || !session || st.closed) return;
    const version = doc.version;
    const run = this.run(st, session, version, doc.getText());
    st.running = run;
    try {
      await run;
    } finally {
      if (st.running === run) st.running = undefined;
    }
  }

  private async run(st: DocState, session: DocumentSession, version: number, text: string): Promise<void> {
    const isCurrent = () => this.ctx.store.isCurrent(st, version, session);
    const bytes = this.ctx.store.oversize(text);
    if (bytes !== undefined && st.kind) {
      // Past the size limit: one diagnostic, no analysis and no cross-file checks.
      st.last = [tooLargeDiagnostic(bytes, this.ctx.settings.maxDocumentMB, st.kind.source)];
      st.lastVersion = version;
      this.publish(st, version);
      return;
    }
    try {
      const diags = await this.slices(session, text, isCurrent);
      if (!diags || !isCurrent()) return;
      const cross = await this.cross.check(st, isCurrent);
      if (cross === null || !isCurrent()) return;
      st.last = cross.length ? [...diags, ...cross] : diags;
      st.lastVersion = version;
      this.publish(st, version);
    } catch (err) {
      this.ctx.connection.console.error(
        `validation of ${st.uri} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
      );
    }
  }

  /** Runs the session's validation in slices; null when the document moved on meanwhile. */
  private async slices(session: DocumentSession, text: string, isCurrent: () => boolean): Promise<Diagnostic[] | null> {
    const r = session.validate(text);
    if (Array.isArray(r)) return r;
    let slice = performance.now();
    for (;;) {
      const step = r.next();
      if (step.done) return step.value;
      if (performance.now() - slice > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
        if (!isCurrent()) return null; // a newer version is scheduled
      }
    }
  }

  /** Sends the last diagnostics of `st` (as of `version`), without what Red Hat's server reports too when asked. */
  publish(st: DocState, version: number): void {
    const kind = st.kind;
    if (!kind || !st.last) return;
    const text = this.ctx.store.text(st.uri);
    const overlap =
      dropsShared(this.ctx.settings) && text !== undefined ? kind.overlapWithYamlServer?.(st.path, text) : undefined;
    const diags = overlap ? st.last.filter((d) => !overlap.reports(d.code)) : st.last;
    const lsp = diags.map(toLspDiagnostic);
    void this.ctx.connection.sendDiagnostics({ uri: st.uri, version, diagnostics: lsp });
    st.published = true;
    if (kind.groups) {
      const sent = JSON.stringify(lsp);
      if (sent !== st.lastSent) {
        st.lastSent = sent;
        this.cross.published(st);
      }
    }
  }
}
