// Debian's Chromium, headless, driven by playwright-core with the flags this machine needs: the
// editor harness (test/editor/run-code-server.mjs), the demo's screenshots and the web page's
// backend test all launch it here. Fails with a clear message when Chromium is not installed
// (test/support/one-time-installs.mjs installs it before the layers that need it).
import { findChromium } from './ensure-editor.mjs';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

/** Launches headless Chromium (playwright-core's Browser). */
export async function launchChromium() {
  const executablePath = findChromium();
  if (!executablePath) throw new Error('Chromium is not installed (apt-get install chromium, or set CHROMIUM_PATH)');
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
}
