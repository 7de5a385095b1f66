// The registry of document kinds (claim order matters: the first available kind claiming a file
// gets it), and helpers for kinds and for their callers.
import type { Diagnostic } from '../../src/core/diagnostics';
import type { DocumentKind, KindSettings, ValidationRun } from './types';

export class KindRegistry {
  private readonly kinds: DocumentKind[] = [];

  /** Adds a kind, or replaces the kind with the same id (in place). */
  register(kind: DocumentKind): this {
    const i = this.kinds.findIndex((k) => k.id === kind.id);
    if (i >= 0) this.kinds[i] = kind;
    else this.kinds.push(kind);
    return this;
  }

  get(id: string): DocumentKind | undefined {
    return this.kinds.find((k) => k.id === id);
  }

  all(): readonly DocumentKind[] {
    return this.kinds;
  }

  /** The first available kind claiming the file. */
  kindFor(filePath: string, text: string | undefined, settings: KindSettings): DocumentKind | undefined {
    return this.kinds.find((k) => !k.unavailable && k.claims(filePath, text, settings));
  }
}

/** A kind whose module is not part of this build: `session-ops validate --kind <id>` says so and exits 2. */
export function unavailableKind(
  id: string,
  title: string,
  source: string,
  reason: string,
  claims: (filePath: string) => boolean = () => false,
): DocumentKind {
  return {
    id,
    title,
    source,
    unavailable: reason,
    claims: (filePath) => claims(filePath),
    candidate: (filePath) => claims(filePath),
    open: () => ({ validate: () => [] }),
  };
}

/** Runs a validation to completion (the CLI does not need to cancel). */
export function runToEnd(run: ValidationRun): Diagnostic[] {
  if (Array.isArray(run)) return run;
  for (;;) {
    const r = run.next();
    if (r.done) return r.value;
  }
}
