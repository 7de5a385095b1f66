// The layering lint holds (issue 30 item 5; eslint.config.mjs, eslint/): each rule fails on a
// violating fixture and passes the allowed form. Fixtures are linted as if they were files at the
// paths given (their imports resolve against the real tree).
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(__dirname, '../../..');

describe('lint: the layering', function () {
  this.timeout(120_000);
  const eslint = new ESLint({ cwd: ROOT });
  /** The lines `rule` flags in `code` linted as `file`. */
  const lint = async (file: string, code: string, rule: string) =>
    (await eslint.lintText(code, { filePath: path.join(ROOT, file) }))[0].messages
      .filter((m) => m.ruleId === rule)
      .map((m) => m.line);

  describe('import-x/no-restricted-paths: a room imports only the rooms on its row', () => {
    const rule = 'import-x/no-restricted-paths';

    it('flags an upward import and passes a downward one', async () => {
      const code = [
        "import type { SessionRow } from '../monitor/row';",
        "import type { SessionCost } from '../model';",
        "import type { HttpTransport } from '../backend/http';",
        'export type X = [SessionRow, SessionCost, HttpTransport];',
      ].join('\n');
      assert.deepEqual(await lint('src/core/cost/example.ts', code, rule), [1]);
    });

    it('keeps the language features off session operations (only the loose files and the settings)', async () => {
      const code = [
        "import { inline } from '../../core/prompt/text';",
        "import type { Diagnostic } from '../../core/diagnostics';",
        "import { TIMING } from '../../core/settings/timing';",
        'export const x = [inline, TIMING] as unknown as Diagnostic;',
      ].join('\n');
      assert.deepEqual(await lint('src/language/routing/example.ts', code, rule), [1]);
    });

    it('the settings model is a leaf: it imports nothing of src/core', async () => {
      assert.deepEqual(
        await lint(
          'src/core/settings/example.ts',
          "import type { EpochMs } from '../model';\nexport type X = EpochMs;",
          rule,
        ),
        [1],
      );
    });

    it('src/core/backend reads only the model, the failure categories and the clock of the loose files', async () => {
      const code = [
        "import type { EpochMs } from '../model';",
        "import { systemClock } from '../clock';",
        "import { classifyFailure } from '../failure-category';",
        "import { nodeId } from '../keys';",
        "import type { SessionRow } from '../monitor/row';",
        'export const x = [systemClock, classifyFailure, nodeId] as unknown as [EpochMs, SessionRow];',
      ].join('\n');
      assert.deepEqual(await lint('src/core/backend/example.ts', code, rule), [4, 5]);
    });

    it('the loose files import no room; the clock only the backend error', async () => {
      const code = "import { BackendError } from './backend/errors';\nexport const x = BackendError;";
      assert.deepEqual(await lint('src/core/example.ts', code, rule), [1]);
      assert.deepEqual(await lint('src/core/clock.ts', code, rule), []);
      assert.deepEqual(
        await lint(
          'src/core/clock.ts',
          "import { isValidSessionId } from './backend/id-checks';\nexport const x = isValidSessionId;",
          rule,
        ),
        [1],
      );
    });

    it('no host below the hosts; the editor never imports the language server', async () => {
      assert.deepEqual(
        await lint('src/core/watch/example.ts', "import { main } from '../../cli/main';\nexport const x = main;", rule),
        [1],
      );
      assert.deepEqual(
        await lint(
          'src/extension/example.ts',
          "import { startServer } from '../../server/main';\nexport const x = startServer;",
          rule,
        ),
        [1],
      );
      assert.deepEqual(
        await lint(
          'src/shared/example.ts',
          "import { startServer } from '../../server/main';\nexport const x = startServer;",
          rule,
        ),
        [1],
      );
    });
    it('a single file of a room may be allowed: the page reads the attention rule of the watch API, nothing else of it', async () => {
      const code = [
        "import { attentionOf } from '../core/watch/api/attention';",
        "import { startDaemon } from '../core/watch/daemon';",
        'export const x = [attentionOf, startDaemon];',
      ].join('\n');
      assert.deepEqual(await lint('src/web/example.ts', code, 'import-x/no-restricted-paths'), [2]);
    });
  });

  describe('import-x/no-cycle', () => {
    it('flags a module that imports a module importing it, within a room and across rooms', async () => {
      // parse.ts imports pieces.ts: pieces importing parse closes a cycle.
      const inRoom = "import { parseText } from './parse';\nexport const x = parseText;";
      assert.deepEqual(await lint('src/language/routing/pieces.ts', inRoom, 'import-x/no-cycle'), [1]);
      // monitor/directory-rows.ts imports cost/budget.ts.
      const across = "import * as rows from '../monitor/directory-rows';\nexport const x = rows;";
      assert.deepEqual(await lint('src/core/cost/budget.ts', across, 'import-x/no-cycle'), [1]);
      assert.deepEqual(await lint('src/core/cost/example.ts', across, 'import-x/no-cycle'), []);
    });
  });

  describe('session-ops/no-type-cycle: the cycles through a type-only import (import-x/no-cycle skips them)', () => {
    const rule = 'session-ops/no-type-cycle';

    it('flags a cycle that a type import closes, or that passes through one', async () => {
      // monitor/row.ts imports the type BudgetLevel of cost/budget.ts (the cycle cost <-> monitor was).
      const typeBack = "import type { SessionRow } from '../monitor/row';\nexport type BudgetLevel = SessionRow;";
      assert.deepEqual(await lint('src/core/cost/budget.ts', typeBack, rule), [1]);
      assert.deepEqual(await lint('src/core/cost/budget.ts', typeBack, 'import-x/no-cycle'), []);
      // parse.ts imports the type ParsedText of parsed-text.ts: a value import back closes a cycle.
      const valueBack = "import { parseText } from './parse';\nexport const x = parseText;";
      assert.deepEqual(await lint('src/language/routing/parsed-text.ts', valueBack, rule), [1]);
      // the view imports the type PortNode of its items (the two view files' cycle was).
      const items =
        "import type { PortAnalysisView } from './portAnalysisView';\nexport type PortNode = PortAnalysisView;";
      assert.deepEqual(await lint('src/extension/views/portAnalysisItems.ts', items, rule), [1]);
    });

    it('leaves a cycle of value imports to import-x/no-cycle, and an import with no way back alone', async () => {
      const valueCycle = "import { parseText } from './parse';\nexport const x = parseText;";
      assert.deepEqual(await lint('src/language/routing/pieces.ts', valueCycle, rule), []);
      assert.deepEqual(
        await lint(
          'src/core/cost/example.ts',
          "import type { SessionRow } from '../monitor/row';\nexport type X = SessionRow;",
          rule,
        ),
        [],
      );
    });
  });

  describe('session-ops/no-dialect-comparison: dialects are compared only in src/core/backend', () => {
    const rule = 'session-ops/no-dialect-comparison';
    const code = [
      'declare const c: { dialect: string; name?: string };',
      "export const a = c.dialect === 'spec';",
      "export const b = 'opencode' !== c.name;",
      'export const d = c?.dialect == `spec`;',
      'switch (c.name) {',
      "  case 'opencode':",
      '    break;',
      '}',
      'export function e(dialect: string) {',
      '  return dialect != null;',
      '}',
      "export const ok = c.name === 'other' && 'spec'.length > 0;",
    ].join('\n');

    it('flags a dialect name or a dialect value compared outside the backend', async () => {
      assert.deepEqual(await lint('src/core/monitor/example.ts', code, rule), [2, 3, 4, 6, 10]);
      assert.deepEqual(await lint('server/example.ts', code, rule), [2, 3, 4, 6, 10]);
    });

    it('leaves the backend alone', async () => {
      assert.deepEqual(await lint('src/core/backend/dialects/example.ts', code, rule), []);
    });
  });

  describe('session-ops/no-folder-listing: folders are listed only in src/language/fs', () => {
    const rule = 'session-ops/no-folder-listing';
    const code = [
      "import * as fs from 'node:fs';",
      "import { readdir } from 'node:fs/promises';",
      "export const a = fs.readdirSync('.');",
      "export const b = readdir('.');",
      "export const c = fs.promises.opendir('.');",
      "export const ok = fs.readFileSync('x');",
    ].join('\n');

    it('flags readdir and opendir outside src/language/fs', async () => {
      assert.deepEqual(await lint('src/core/watch/example.ts', code, rule), [2, 3, 4, 5]);
      assert.deepEqual(await lint('server/example.ts', code, rule), [2, 3, 4, 5]);
    });

    it('leaves src/language/fs alone', async () => {
      assert.deepEqual(await lint('src/language/fs/example.ts', code, rule), []);
    });
  });

  describe('session-ops/guarded-prompt-issuer: only the send guard issues a guarded prompt', () => {
    const rule = 'session-ops/guarded-prompt-issuer';
    const code = [
      "import { issueGuardedPrompt } from '../backend/guarded-prompt';",
      'export const p = issueGuardedPrompt;',
    ].join('\n');

    it('flags any other issuer', async () => {
      assert.deepEqual(await lint('src/core/operations/example.ts', code, rule), [1, 2]);
    });

    it('leaves the guard alone', async () => {
      assert.deepEqual(await lint('src/core/actions/guard.ts', code, rule), []);
    });
  });

  describe('max-lines: small files', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`);

    it('flags a file over 400 lines of code; blank lines and comments do not count', async () => {
      assert.deepEqual(await lint('src/core/example.ts', lines(401).join('\n'), 'max-lines'), [401]);
      const padded = [...lines(400), '', '// a comment', '/* and another */'].join('\n');
      assert.deepEqual(await lint('src/core/example.ts', padded, 'max-lines'), []);
      assert.deepEqual(await lint('test/unit/example.test.ts', lines(401).join('\n'), 'max-lines'), [401]);
    });
  });
});
