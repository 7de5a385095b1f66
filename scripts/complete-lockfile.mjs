#!/usr/bin/env node
// The registry reachable here serves only the Linux x64 builds of opencode-ai's platform
// packages, so `npm install` writes a lockfile without the other platforms' optional entries and
// `npm ci` then refuses it as out of sync. This adds those entries (platform-gated, never
// fetched on Linux x64), so `npm ci` works on a fresh clone. Run after changing dependencies.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const pkgs = lock.packages;
let added = 0;
for (const [name, entry] of Object.entries(pkgs)) {
  for (const [dep, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${dep}`;
    if (pkgs[key]) continue;
    const m = /-(darwin|linux|windows)-(arm64|x64)(?:-baseline)?(-musl)?$/.exec(dep);
    if (!m) {
      console.error(`${name}: cannot infer the platform of optional dependency ${dep}; add it by hand`);
      process.exitCode = 1;
      continue;
    }
    pkgs[key] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      os: [m[1] === 'windows' ? 'win32' : m[1]],
      cpu: [m[2]],
      ...(m[3] ? { libc: ['musl'] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(pkgs).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`added ${added} platform-gated lockfile entries`);
