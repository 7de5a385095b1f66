import type { BuildOptions } from 'esbuild';
/** The esbuild options of the page bundle written to `outdir` (app.js, app.css, icon.svg). */
export function webBuildOptions(outdir: string, production: boolean): BuildOptions;
