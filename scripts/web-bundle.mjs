// The web page's bundle (issue 32): src/web/main.ts for the browser (one script, one stylesheet)
// into `<outdir>` (dist/web beside dist/cli.js), with the icon. `session-ops watch` serves these
// three files at /assets/ (src/core/watch/web-page.ts); nothing in them is fleet data.
// Shared by esbuild.mjs and the backend tests' CLI bundle (test/backend/cli-bundle.ts).
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The esbuild options of the page bundle written to `outdir` (app.js, app.css). */
export function webBuildOptions(outdir, production) {
  return {
    absWorkingDir: root,
    entryPoints: { app: 'src/web/main.ts' },
    outdir,
    bundle: true,
    platform: 'browser',
    format: 'iife',
    // Browsers of the last few years, phones included.
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: production,
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [
      {
        name: 'session-ops-web-icon',
        setup(build) {
          build.onEnd(() => {
            mkdirSync(outdir, { recursive: true });
            copyFileSync(path.join(root, 'media', 'session-ops.svg'), path.join(outdir, 'icon.svg'));
          });
        },
      },
    ],
  };
}
