#!/usr/bin/env node
// Renders the Marketplace icon media/icon.png (128x128) from media/session-ops.svg with the
// Debian Chromium the editor tests use (playwright-core): the activity-bar glyph, light on a
// dark rounded square. Run again after changing the svg: node scripts/demo-render-icon.mjs
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../test/editor/run-code-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const svg = readFileSync(path.join(root, 'media', 'session-ops.svg'), 'utf8').replace(
  '<svg ',
  '<svg style="width:96px;height:96px;color:#7fd1ff" ',
);
const html = `<html><body style="margin:0;background:transparent"><div style="width:128px;height:128px;border-radius:24px;background:linear-gradient(135deg,#1e2a3a,#0d1520);display:flex;align-items:center;justify-content:center">${svg}</div></body></html>`;
const browser = await launchBrowser();
try {
  const page = await (await browser.newContext({ viewport: { width: 128, height: 128 } })).newPage();
  await page.setContent(html);
  await page.screenshot({ path: path.join(root, 'media', 'icon.png'), omitBackground: true });
  console.log('media/icon.png');
} finally {
  await browser.close();
}
