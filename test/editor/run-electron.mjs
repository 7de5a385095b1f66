#!/usr/bin/env node
// The same editor suite on a desktop with VS Code, through @vscode/test-electron (it downloads
// VS Code, which these CI machines cannot; here use run-code-server.mjs).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTests } from '@vscode/test-electron';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
try {
  await runTests({
    version: '1.100.3',
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'out', 'test', 'editor', 'index.js'),
    launchArgs: [path.join(root, 'test', 'editor', 'workspace'), '--disable-extensions', '--disable-workspace-trust'],
    extensionTestsEnv: { SESSION_OPS_RESULTS_DIR: path.join(root, 'test-results') },
  });
} catch (err) {
  console.error(`editor suite failed: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
}
