// The test habits every mocha run of this project follows (unit, lsp, backend: through `require`
// in their .mocharc.json; the editor suite: through test/editor/suite/index.ts):
//   - `.only` fails the run (forbidOnly, set next to this file's use) and so does a run that
//     executes zero tests (failZero);
//   - a pending test is listed at the end of the run, and fails it unless its title says why:
//     skip with `skipBecause(this, 'why')`, which appends ` [pending: why]` to the title, or write
//     the same marker in the title of an `it.skip(...)`.
import type * as Mocha from 'mocha';

export const PENDING_MARKER = '[pending: ';

/** Marks the running test pending, with its reason in its title (the run reports it and passes). */
export function skipBecause(ctx: Mocha.Context, why: string): never {
  const test = ctx.test;
  if (test && !test.title.includes(PENDING_MARKER)) test.title = `${test.title} ${PENDING_MARKER}${why}]`;
  ctx.skip();
}

function collect(suite: Mocha.Suite, out: Mocha.Test[]): Mocha.Test[] {
  out.push(...suite.tests);
  for (const child of suite.suites) collect(child, out);
  return out;
}

/** The pending tests of a finished run: those with a reason and those without. */
export function pendingOf(root: Mocha.Suite): { explained: string[]; unexplained: string[] } {
  const pending = collect(root, []).filter((t) => t.isPending());
  const titles = pending.map((t) => t.fullTitle());
  return {
    explained: titles.filter((t) => t.includes(PENDING_MARKER)),
    unexplained: titles.filter((t) => !t.includes(PENDING_MARKER)),
  };
}

/** Root hooks: after the whole run, report pending tests and fail on those that do not say why. */
export const mochaHooks = {
  afterAll(this: Mocha.Context): void {
    let root: Mocha.Suite | undefined = this.test?.parent;
    while (root?.parent) root = root.parent;
    if (!root) return;
    const { explained, unexplained } = pendingOf(root);
    if (explained.length + unexplained.length === 0) return;
    console.log(`\n  pending tests (${explained.length + unexplained.length}):`);
    for (const t of [...explained, ...unexplained]) console.log(`    - ${t}`);
    if (unexplained.length > 0) {
      throw new Error(
        `${unexplained.length} pending test(s) do not say why: use skipBecause(this, 'why') or put "${PENDING_MARKER}why]" in the title`,
      );
    }
  },
};
