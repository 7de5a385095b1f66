import type { Browser } from 'playwright-core';
export const CHROMIUM_ARGS: string[];
/** Launches headless Chromium (playwright-core's Browser). */
export function launchChromium(): Promise<Browser>;
