// Loads the page corpus under test/fixtures/pages.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { PageKind } from '../../../../src/language/pages';

export const FIXTURES = path.resolve(__dirname, '../../../fixtures/pages');

/** A valid set: its source-analysis folder and its pages (path → text). */
export function loadSet(
  group: string,
  name: string,
): { folder: string; portFolder: string; pages: Map<string, string> } {
  const portFolder = path.join(FIXTURES, group, name);
  const folder = path.join(portFolder, 'source-analysis');
  const pages = new Map<string, string>();
  for (const f of readdirSync(folder).sort()) {
    const p = path.join(folder, f);
    if (statSync(p).isFile()) pages.set(p, readFileSync(p, 'utf8'));
  }
  return { folder, portFolder, pages };
}

export function listDirs(dir: string): string[] {
  return readdirSync(dir)
    .filter((d) => statSync(path.join(dir, d)).isDirectory())
    .sort();
}

export interface Expectation {
  /** 1-based. */
  line: number;
  /** 1-based start column, when the fixture pins it. */
  column: number | null;
  code: string;
  severity: string;
}

/** `<!-- expect: 12 page.duplicate-id -->`, `<!-- expect: 12:5 page.empty-cell warning -->`. */
export function expectationsOf(text: string): Expectation[] {
  const out: Expectation[] = [];
  for (const m of text.matchAll(
    /<!--\s*expect:\s*(\d+)(?::(\d+))?\s+([\w.-]+)(?:\s+(error|warning|information|hint))?\s*-->/g,
  )) {
    out.push({ line: Number(m[1]), column: m[2] ? Number(m[2]) : null, code: m[3], severity: m[4] ?? 'error' });
  }
  return out;
}

/** Invalid single-page fixtures: test/fixtures/pages/invalid/<kind>/<case>.md. */
export function invalidFixtures(): { kind: PageKind; name: string; file: string; text: string }[] {
  const root = path.join(FIXTURES, 'invalid');
  return listDirs(root).flatMap((kind) =>
    readdirSync(path.join(root, kind))
      .sort()
      .map((name) => {
        const file = path.join(root, kind, name);
        return { kind: kind as PageKind, name, file, text: readFileSync(file, 'utf8') };
      }),
  );
}

/** The path a fixture is validated under: a page of its kind in a source-analysis folder. */
export function pagePathFor(kind: PageKind): string {
  return path.join(FIXTURES, 'port', 'source-analysis', `${kind}.md`);
}
