// `session-ops watch` for the backend tests: the CLI bundled into `tmp` (with the web page beside
// it when `page`), then started by the shared helper (test/support/watch-process.ts).
import path from 'node:path';
import { startWatchCli, type WatchOptions, type WatchProcess } from '../support/watch-process';
import { bundleCli, bundleCliWithPage } from './cli-bundle';

export type { WatchProcess, WatchToken } from '../support/watch-process';

/** Bundles the CLI into `tmp` and starts watch on `baseUrl` for `directory` (state and home in `tmp`). */
export async function startWatch(
  tmp: string,
  baseUrl: string,
  directory: string,
  options: WatchOptions & { page?: boolean } = {},
): Promise<WatchProcess> {
  const cli = path.join(tmp, 'cli.js');
  await (options.page ? bundleCliWithPage : bundleCli)(cli);
  return startWatchCli(cli, tmp, baseUrl, directory, options);
}
