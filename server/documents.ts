// The open documents: their text (TextDocuments, incremental sync) and the server's state of each
// (its kind, its session, the last validated version and diagnostics).
import { systemClock, type TimerHandle } from '../src/core/clock';
import { pathToFileURL } from 'node:url';
import { TextDocuments } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../src/core/diagnostics';
import { oversize } from '../src/core/document-size';
import type { DocumentKind, DocumentSession } from './kinds/types';
import { pathKey, uriToPath } from './paths';

export interface DocState {
  uri: string;
  path: string;
  kind?: DocumentKind;
  session?: DocumentSession;
  timer?: TimerHandle;
  /** When the last edit was scheduled (performance.now()), to tell a burst of edits. */
  editedAt?: number;
  running?: Promise<void>;
  /** Our full diagnostics of the last validated version (before filtering). */
  last?: Diagnostic[];
  lastVersion?: number;
  /** The last diagnostics sent (JSON), to tell whether a page's diagnostics changed. */
  lastSent?: string;
  published: boolean;
  closed: boolean;
}

export class DocumentStore {
  readonly documents = new TextDocuments(TextDocument);
  private readonly states = new Map<string, DocState>();

  constructor(
    /** sessionOps.maxDocumentMB: larger documents are not analysed. */
    private readonly maxDocumentMB: () => number,
  ) {}

  /** The size in bytes of `text` when it is past the analysis limit, else undefined. */
  oversize(text: string): number | undefined {
    return oversize(text, this.maxDocumentMB());
  }

  get(uri: string): DocState | undefined {
    return this.states.get(uri);
  }

  create(uri: string): DocState {
    const st: DocState = { uri, path: uriToPath(uri), published: false, closed: false };
    this.states.set(uri, st);
    return st;
  }

  /** Marks the document closed and forgets it. */
  close(uri: string): DocState | undefined {
    const st = this.states.get(uri);
    if (!st) return undefined;
    st.closed = true;
    if (st.timer) systemClock.clearTimeout(st.timer);
    this.states.delete(uri);
    return st;
  }

  all(): IterableIterator<DocState> {
    return this.states.values();
  }

  /** The document's current text, when open. */
  text(uri: string): string | undefined {
    return this.documents.get(uri)?.getText();
  }

  /** Is the document still at `version`, open, and with `session`? (else a newer run is scheduled) */
  isCurrent(st: DocState, version: number, session: DocumentSession): boolean {
    const cur = this.documents.get(st.uri);
    return !!cur && cur.version === version && !st.closed && st.session === session;
  }

  /** Open documents' texts by path (the overlay on what the disk holds). */
  openTexts(): Map<string, string> {
    const out = new Map<string, string>();
    for (const st of this.states.values()) {
      if (st.closed) continue;
      const text = this.text(st.uri);
      if (text !== undefined) out.set(st.path, text);
    }
    return out;
  }

  /** A file's URI: the open document's own URI when it is open (so that the editor matches it). */
  uriOf(filePath: string): string {
    const key = pathKey(filePath);
    for (const st of this.states.values()) if (pathKey(st.path) === key) return st.uri;
    return pathToFileURL(filePath).href;
  }

  /** An open document with a session, for feature requests; undefined past the size limit (see outlineOf). */
  sessionFor(uri: string): { st: DocState; session: DocumentSession; text: string } | undefined {
    const s = this.anySessionFor(uri);
    return s && this.oversize(s.text) === undefined ? s : undefined;
  }

  /** An open document with a session, whatever its size. */
  anySessionFor(uri: string): { st: DocState; session: DocumentSession; text: string } | undefined {
    const st = this.states.get(uri);
    const text = this.text(uri);
    if (!st || !st.session || text === undefined) return undefined;
    return { st, session: st.session, text };
  }
}
