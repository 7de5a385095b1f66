#!/usr/bin/env node
// On-demand benchmark: open-to-diagnostics and edit-to-diagnostics for generated routing tables of
// 100, 1,000 and 10,000 routes (every route uses entry, skip, keep_gates, two preflight items,
// notes and effort), for our language server (dist/server.js over stdio) and Red Hat's
// yaml-language-server (over stdio, same schema, configured as the reference describes), in the
// same run, plus the floor: `yaml` parse + Ajv2020 validate in process. Prints a table, and where
// our open time goes (read, parse, validate, serialize: bench/lsp/phases.ts, in process).
//
//   node esbuild.mjs && node bench/lsp.mjs [--sizes 100,1000,10000] [--edits 7] [--no-redhat] [--smoke]
//     [--runs 5] [--server LABEL=PATH/server.js ...] [--hostile-deadline 120]
// --runs R: each server opens each table R times (a fresh file each time, servers alternating; the
//   edits follow the first open); open times and the open ratio to yaml-language-server are the
//   median of the R runs, with their spread (min-max) printed.
// --server LABEL=PATH: another build of our server (e.g. the one before a change, built from
//   `git archive`), measured beside ours in the same run (started with no Node flags unless
//   --node-args gives some).
// --node-args LABEL="FLAGS": the Node flags of the --server build LABEL; for any other LABEL, this
//   checkout's server started with FLAGS instead of the extension's, as another build LABEL.
// Our server is started with the Node flags the extension starts it with (SERVER_EXEC_ARGV,
// src/shared/serverProcess.ts), so the bench measures it as users run it.
// --smoke: 100 routes, 3 edits (npm test's bench-smoke layer: it must complete and print its table).
// --cap-routes N: the table of the hostile 'broken' row (default 14,000 routes, 8.1 MB = 7.7 MiB,
//   under the 8 MiB sessionOps.maxDocumentMB; --smoke: 100). Every request kind at the size limit
//   and at 10,000 routes, beside yaml-language-server: bench/lsp-requests.mjs.
// The hostile rows (issue 31 item 6): document symbols on the hostile documents at the size limit,
//   --hostile-mb of unknown top-level keys (symbols sent with the open) and the --cap-routes table
//   after an edit that breaks its structure (the middle route key moved to column 0), for every
//   build and yaml-language-server, --runs times alternating.
import * as esbuild from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuMs, isDiag, loadServerExecArgv, startOurs, startRedhat } from './lsp/client.mjs';
import { generate } from './lsp/generate.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const SMOKE = args.includes('--smoke');
const SIZES = opt('--sizes', SMOKE ? '100' : '100,1000,10000')
  .split(',')
  .map(Number);
const EDITS = Number(opt('--edits', SMOKE ? '3' : '7'));
const CAP_ROUTES = Number(opt('--cap-routes', SMOKE ? '100' : '14000'));
const REDHAT = !args.includes('--no-redhat');
// --hostile-mb M: the size of the hostile 'keys' document (default 7.9 MiB, under the 8 MiB limit; --smoke: 0.05)
const HOSTILE_MB = Number(opt('--hostile-mb', SMOKE ? '0.05' : '7.9'));
// --hostile-deadline S: a hostile row's request (or open) with no answer after S seconds counts as unanswered (default 120; --smoke: 60)
const HOSTILE_TIMEOUT_MS = Number(opt('--hostile-deadline', SMOKE ? '60' : '120')) * 1000;
// --cpu-prof DIR: our server writes a V8 CPU profile there when it exits (node --cpu-prof)
const CPU_PROF = opt('--cpu-prof', undefined);
const RUNS = Number(opt('--runs', '1'));
const others = args.flatMap((a, i) => (a === '--server' ? [args[i + 1].split('=')] : []));
/** LABEL -> Node flags (--node-args LABEL="FLAGS"). */
const nodeArgs = new Map(
  args.flatMap((a, i) => {
    if (a !== '--node-args') return [];
    const at = args[i + 1].indexOf('=');
    return [
      [
        args[i + 1].slice(0, at),
        args[i + 1]
          .slice(at + 1)
          .split(' ')
          .filter(Boolean),
      ],
    ];
  }),
);
const schemaPath = path.join(root, 'schemas', 'routing.schema.json');
// Not under a dot-folder: yaml-language-server's schema globs do not match paths with one.
const work = path.join(os.tmpdir(), 'session-ops-bench');

/** Open, then EDITS edits alternately breaking and fixing one effort value in the middle route. */
async function measureServer(client, n, text, edits, run = 0) {
  const dir = path.join(work, `${client.name.replace(/[^A-Za-z0-9_-]/g, '_')}-${n}-${run}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'routing.yaml');
  writeFileSync(file, text);
  const uri = pathToFileURL(file).href;
  const cpu0 = cpuMs(client.proc.pid);
  const t0 = performance.now();
  const first = client.waitFor(isDiag(uri));
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  const { msg, at } = await first;
  const open = at - t0;
  const openCpu = cpuMs(client.proc.pid) - cpu0;
  if (msg.params.diagnostics.length !== 0)
    throw new Error(`${client.name}: expected a valid document, got ${JSON.stringify(msg.params.diagnostics[0])}`);
  const lines = text.split('\n');
  const mid = `  Kind/Route${String(Math.floor(n / 2)).padStart(5, '0')}:`;
  let line = lines.indexOf(mid);
  while (!lines[line].startsWith('    effort:')) line++;
  const editTimes = [];
  let version = 1;
  for (let k = 0; k < edits; k++) {
    const broken = k % 2 === 0;
    const newText = broken ? 'hihg' : 'high';
    const oldLen = 4;
    const range = { start: { line, character: 12 }, end: { line, character: 12 + oldLen } };
    const wait = client.waitFor(isDiag(uri, broken ? 1 : 0));
    const t = performance.now();
    client.notify('textDocument/didChange', {
      textDocument: { uri, version: ++version },
      contentChanges: [{ range, text: newText }],
    });
    const r = await wait;
    editTimes.push(r.at - t);
  }
  client.notify('textDocument/didClose', { textDocument: { uri } });
  return { open, openCpu, edits: editTimes, editLine: line };
}

/** Unknown top-level keys (15 bytes a line) up to `mb` MiB: hostile input under the size limit. */
function hostileKeys(mb) {
  const out = [];
  for (let i = 0, size = 0; size < mb * 1024 * 1024; i++, size += 15) out.push(`key_${String(i).padStart(6, '0')}: 1`);
  return out.join('\n') + '\n';
}

/** A request's answer, or { timedOut } after `ms`. */
const answerWithin = (p, ms) => Promise.race([p, new Promise((r) => setTimeout(() => r({ timedOut: true }), ms))]);

/**
 * The hostile rows: document symbols (the slowest request kind) on the hostile documents at the
 * size limit. 'keys': HOSTILE_MB of unknown top-level keys, symbols sent with the open, timed from
 * the open. 'broken': the request row's table, open and validated, then one edit that moves the
 * middle route key to column 0 (the rest of the table leaves `routes`), symbols sent with it,
 * timed from the edit.
 */
async function measureHostile(client, scenario, text, run) {
  const dir = path.join(work, `${client.name.replace(/[^A-Za-z0-9_-]/g, '_')}-hostile-${scenario}-${run}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'routing.yaml');
  writeFileSync(file, text);
  const uri = pathToFileURL(file).href;
  const doc = { textDocument: { uri } };
  let t;
  let cpu0;
  if (scenario === 'keys') {
    cpu0 = cpuMs(client.proc.pid);
    t = performance.now();
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  } else {
    const opened = client.waitFor(isDiag(uri), HOSTILE_TIMEOUT_MS);
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
    try {
      await opened;
    } catch {
      // no diagnostics for the open within the cap (yaml-language-server still busy with the hostile keys)
      client.notify('textDocument/didClose', { textDocument: { uri } });
      return { ms: NaN, cpu: NaN, entries: 'no answer to the open', timedOut: true };
    }
    const line = text.split('\n').indexOf(`  Kind/Route${String(Math.floor(CAP_ROUTES / 2)).padStart(5, '0')}:`);
    cpu0 = cpuMs(client.proc.pid);
    t = performance.now();
    client.notify('textDocument/didChange', {
      textDocument: { uri, version: 2 },
      contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: 2 } }, text: '' }],
    });
  }
  const answer = await answerWithin(client.request('textDocument/documentSymbol', doc), HOSTILE_TIMEOUT_MS);
  const ms = performance.now() - t;
  const cpu = cpuMs(client.proc.pid) - cpu0;
  client.notify('textDocument/didClose', { textDocument: { uri } });
  if (answer?.timedOut) return { ms: NaN, cpu, entries: 'no answer', timedOut: true };
  if (!Array.isArray(answer))
    throw new Error(`${client.name}: documentSymbol answered ${JSON.stringify(answer).slice(0, 200)}`);
  const count = (xs) => xs.reduce((k, x) => k + 1 + count(x.children ?? []), 0);
  return { ms, cpu, entries: count(answer) };
}

/**
 * The hostile rows for every build and yaml-language-server (when `shared`, the one the other rows
 * use, is given): a fresh yaml-language-server process for each measurement (one still busy with a
 * hostile document would delay every later one; --smoke: the shared one, as starting one takes
 * seconds); after a request with no answer, the server's further runs of that document are not
 * made (the bench ends in bounded time).
 */
async function hostileRows(builds, shared) {
  const texts = { keys: hostileKeys(HOSTILE_MB), broken: generate(CAP_ROUTES) };
  const rh = shared ? { name: shared.name } : undefined;
  const clients = [...builds, ...(rh ? [rh] : [])];
  const got = new Map();
  for (const scenario of Object.keys(texts)) {
    process.stderr.write(`hostile row ${scenario}:`);
    for (let run = 0; run < RUNS; run++)
      for (const c of clients) {
        process.stderr.write(` ${c.name}...`);
        const key = `${scenario} ${c.name}`;
        if (!got.has(key)) got.set(key, []);
        if (got.get(key).some((x) => x.timedOut)) {
          got.get(key).push({ ms: NaN, cpu: NaN, entries: 'not made', timedOut: true, notMade: true });
          continue;
        }
        const fresh = c === rh && !SMOKE;
        const client = c !== rh ? c : fresh ? await startRedhat(work, rh.name) : shared;
        try {
          got.get(key).push(await measureHostile(client, scenario, texts[scenario], run));
        } finally {
          if (fresh) await client.stop();
        }
      }
    process.stderr.write('\n');
  }
  const mb = (x) => (Buffer.byteLength(x) / (1024 * 1024)).toFixed(2);
  return () => {
    console.log(
      `\nHostile documents at the size limit, document symbols (the slowest request kind), ${RUNS} run(s) alternating (yaml-language-server: ${SMOKE ? 'the process of the rows above' : 'a fresh process for each'}): median (min-max); the ratio is taken within each run; CPU = the server process's CPU time to the answer; no answer within ${HOSTILE_TIMEOUT_MS / 1000} s counts as that (and that server's further runs of the document are not made). keys: ${mb(texts.keys)} MiB of unknown top-level keys, symbols sent with the open. broken: the ${CAP_ROUTES.toLocaleString('en')}-route table (${mb(texts.broken)} MiB), one edit moving the middle route key to column 0, symbols sent with it.`,
    );
    const head = ['document', 'build', 'to symbols', 'CPU', 'entries', 'ours / yaml-ls'];
    const spread = (runs, field) => {
      const ok = runs.filter((x) => !Number.isNaN(x[field])).map((x) => x[field]);
      const notMade = runs.filter((x) => x.notMade).length;
      const none = runs.length - ok.length - notMade;
      const missing = [none ? `${none} no answer` : '', notMade ? `${notMade} not made` : '']
        .filter(Boolean)
        .join(', ');
      if (!ok.length) return `${missing} (of ${runs.length})`;
      return `${fmt(median(ok))} (${fmt(Math.min(...ok))}-${fmt(Math.max(...ok))})${missing ? `, ${missing}` : ''}`;
    };
    const body = [];
    for (const scenario of Object.keys(texts))
      for (const c of clients) {
        const m = got.get(`${scenario} ${c.name}`);
        const rhRuns = rh && got.get(`${scenario} ${rh.name}`);
        const ratios =
          rhRuns && c !== rh
            ? m
                .map((x, i) =>
                  rhRuns[i].notMade ? NaN : x.ms / (rhRuns[i].timedOut ? HOSTILE_TIMEOUT_MS : rhRuns[i].ms),
                )
                .filter((x) => !Number.isNaN(x))
            : undefined;
        body.push([
          scenario,
          c === rh ? 'yaml-language-server' : c.name,
          spread(m, 'ms'),
          spread(m, 'cpu'),
          String(m[0].entries),
          ratios && ratios.length
            ? `${median(ratios).toFixed(3)}x (${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)})`
            : '-',
        ]);
      }
    const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const row = (cells) => `| ${cells.map((c, i) => (i < 2 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ')} |`;
    console.log(row(head));
    console.log(`|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`);
    for (const b of body) console.log(row(b));
    const ours = Object.keys(texts).flatMap((k) => got.get(`${k} ours`).map((x) => x.ms));
    const worst = ours.some((x) => Number.isNaN(x)) ? Infinity : Math.max(...ours);
    console.log(
      `goal document symbols on hostile documents at the size limit within 5 s: slowest ${fmt(worst)} ${worst < 5000 ? 'met' : 'NOT met'}`,
    );
  };
}

async function sanity(client) {
  // The server must report the schema error of a small invalid file (proves the schema is associated).
  const dir = path.join(work, `${client.name}-sanity`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'routing.yaml');
  const text = 'version: 1\ndefault: {}\nroutes:\n  Kind/Bug:\n    effort: hihg\n';
  writeFileSync(file, text);
  const uri = pathToFileURL(file).href;
  const w = client.waitFor(isDiag(uri), 60000);
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text } });
  const { msg } = await w;
  client.notify('textDocument/didClose', { textDocument: { uri } });
  if (msg.params.diagnostics.length < 1)
    throw new Error(`${client.name}: the schema is not applied (no diagnostic for an invalid value)`);
  return msg.params.diagnostics[0].message;
}

function floor(text, runs) {
  const { parseDocument } = require('yaml');
  const Ajv2020 = require('ajv/dist/2020').default;
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const doc = parseDocument(text);
    validate(doc.toJS());
    times.push(performance.now() - t);
  }
  return times;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms) => (ms === undefined ? '-' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);

/** bench/lsp/phases.ts bundled with the core modules it measures. */
async function loadPhases() {
  const outfile = path.join(root, '.bench', 'lsp-phases.mjs');
  await esbuild.build({
    entryPoints: [path.join(root, 'bench', 'lsp', 'phases.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'error',
  });
  return import(pathToFileURL(outfile).href);
}

async function main() {
  // the workspace holds only this run's tables (the servers index the routing tables they find in it)
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const { measureOpenPhases, measureEditPhases } = await loadPhases();
  const rows = [];
  const serverExecArgv = await loadServerExecArgv();
  const here = path.join(root, 'dist', 'server.js');
  const ours = await startOurs('ours', here, serverExecArgv, work, CPU_PROF);
  const builds = [ours];
  for (const [label, file] of others)
    builds.push(await startOurs(label, path.resolve(file), nodeArgs.get(label) ?? [], work, CPU_PROF));
  for (const [label, flags] of nodeArgs)
    if (!others.some(([l]) => l === label)) builds.push(await startOurs(label, here, flags, work, CPU_PROF));
  const rh = REDHAT ? await startRedhat(work) : undefined;
  const sanityOurs = await sanity(ours);
  for (const b of builds.slice(1)) await sanity(b);
  const sanityRh = rh ? await sanity(rh) : undefined;
  for (const n of SIZES) {
    const text = generate(n);
    const lines = text.split('\n').length - 1;
    const mb = Buffer.byteLength(text) / 1e6;
    process.stderr.write(`${n} routes (${lines} lines, ${mb.toFixed(2)} MB):`);
    /** Per build (ours first), then yaml-language-server: the measurement of the first run, with every run's open time. */
    const byBuild = new Map();
    const measure = async (client, r, edits) => {
      process.stderr.write(` ${client.name}...`);
      const m = await measureServer(client, n, text, r === 0 ? edits : 0, r);
      const got = byBuild.get(client.name);
      if (got) {
        got.opens.push(m.open);
        got.cpus.push(m.openCpu);
      } else byBuild.set(client.name, { ...m, opens: [m.open], cpus: [m.openCpu] });
    };
    for (let run = 0; run < RUNS; run++) {
      for (const b of builds) await measure(b, run, EDITS);
      if (rh) await measure(rh, run, n >= 10000 ? Math.min(EDITS, 3) : EDITS);
    }
    const withMedian = (m) => m && { ...m, open: median(m.opens) };
    const o = withMedian(byBuild.get('ours'));
    const r = withMedian(rh && byBuild.get(rh.name));
    const alongside = builds.slice(1).map((b) => ({ name: b.name, m: withMedian(byBuild.get(b.name)) }));
    process.stderr.write(' floor...\n');
    const f = floor(text, n >= 10000 ? 3 : 5);
    const phases = measureOpenPhases(text, n >= 10000 ? 3 : 5);
    const editPhases = measureEditPhases(text, o.editLine, 12, EDITS);
    rows.push({ n, lines, mb, o, r, f: median(f), phases, editPhases, alongside });
    rows.at(-1).flags = new Map(builds.map((b) => [b.name, b.flags]));
  }
  const printHostileRows = await hostileRows(builds, rh);
  for (const b of builds) await b.stop();
  await rh?.stop();

  const head = [
    'routes',
    'lines',
    'MB',
    'ours open',
    'ours edit (median)',
    'yaml-ls open',
    'yaml-ls edit (median)',
    'floor (parse+ajv)',
    'open ours/yaml-ls',
    'edit ours/yaml-ls',
    'open ours/floor',
    'edit ours/floor',
  ];
  const body = rows.map(({ n, lines, mb, o, r, f }) => [
    n.toLocaleString('en'),
    lines.toLocaleString('en'),
    mb.toFixed(2),
    fmt(o.open),
    fmt(median(o.edits)),
    r ? fmt(r.open) : '-',
    r ? fmt(median(r.edits)) : '-',
    fmt(f),
    r ? `${(o.open / r.open).toFixed(3)}x` : '-',
    r ? `${(median(o.edits) / median(r.edits)).toFixed(3)}x` : '-',
    `${(o.open / f).toFixed(2)}x`,
    `${(median(o.edits) / f).toFixed(3)}x`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => c.padStart(widths[i])).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
  if (RUNS > 1 || others.length) printRuns(rows);
  console.log(
    `\nWhere our open time goes (in process, the server's core modules, median of ${SIZES.some((n) => n >= 10000) ? '3-5' : '5'} fresh opens; the rest of "ours open" is IPC, scheduling and the server's own bookkeeping)`,
  );
  const phead = ['routes', 'ours open', 'read (decode didOpen)', 'parse', 'validate', 'serialize', 'sum', 'sum/open'];
  const pbody = rows.map(({ n, o, phases: p }) => {
    const sum = p.readMs + p.parseMs + p.validateMs + p.serializeMs;
    return [
      n.toLocaleString('en'),
      fmt(o.open),
      fmt(p.readMs),
      fmt(p.parseMs),
      fmt(p.validateMs),
      fmt(p.serializeMs),
      fmt(sum),
      `${((sum / o.open) * 100).toFixed(0)}%`,
    ];
  });
  const pw = phead.map((h, i) => Math.max(h.length, ...pbody.map((b) => b[i].length)));
  const pline = (cells) => `| ${cells.map((c, i) => c.padStart(pw[i])).join(' | ')} |`;
  console.log(pline(phead));
  console.log(`|${pw.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of pbody) console.log(pline(b));
  console.log(
    `\nWhere a one-token edit's time goes (in process, median of ${EDITS} edits like the ones timed above, on an analyzer that has seen the previous version; the rest of "ours edit" is IPC, the debounce when edits come in a burst, and scheduling)`,
  );
  const ehead = [
    'routes',
    'ours edit (median)',
    'read (decode, apply)',
    'split (diff, resplit)',
    'parse (changed chunk)',
    'validate',
    'serialize',
    'sum',
    'sum/edit',
  ];
  const ebody = rows.map(({ n, o, editPhases: e }) => {
    const sum = e.readMs + e.splitMs + e.parseMs + e.validateMs + e.serializeMs;
    const em = median(o.edits);
    return [
      n.toLocaleString('en'),
      fmt(em),
      fmt(e.readMs),
      fmt(e.splitMs),
      fmt(e.parseMs),
      fmt(e.validateMs),
      fmt(e.serializeMs),
      fmt(sum),
      `${((sum / em) * 100).toFixed(0)}%`,
    ];
  });
  const ew = ehead.map((h, i) => Math.max(h.length, ...ebody.map((b) => b[i].length)));
  const eline = (cells) => `| ${cells.map((c, i) => c.padStart(ew[i])).join(' | ')} |`;
  console.log(eline(ehead));
  console.log(`|${ew.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of ebody) console.log(eline(b));
  console.log(
    `\nedits: ${EDITS} per size (yaml-language-server: at most 3 at 10,000 routes), each an incremental one-token change in the middle route, alternately introducing and fixing an enum error; timed until the diagnostics reflecting it arrive.`,
  );
  console.log(`sanity: ours reports "${sanityOurs}"${sanityRh ? `; yaml-language-server reports "${sanityRh}"` : ''}`);
  const big = rows.find((x) => x.n === 10000);
  const mid = rows.find((x) => x.n === 1000);
  if (big && big.r)
    console.log(
      `goal 10,000 routes, open <= 0.05x yaml-ls: ${(big.o.open / big.r.open).toFixed(3)}x ${big.o.open <= 0.05 * big.r.open ? 'met' : 'NOT met'}`,
    );
  if (big && big.r && RUNS > 1) {
    const worst = Math.max(...big.o.opens.map((x, i) => x / big.r.opens[i]));
    const over = big.o.opens.filter((x, i) => x > 0.05 * big.r.opens[i]).length;
    console.log(
      `goal 10,000 routes, open <= 0.05x yaml-ls in every run: worst ${worst.toFixed(3)}x, ${over} of ${RUNS} over: ${over ? 'NOT met' : 'met'}`,
    );
  }
  if (big)
    console.log(
      `goal 10,000 routes, one-line edit median < 30 ms: ${fmt(median(big.o.edits))} ${median(big.o.edits) < 30 ? 'met' : 'NOT met'}`,
    );
  console.log(
    `machine: ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} (1, 5, 15 min) at the end of the run, Node ${process.version}`,
  );
  if (big && big.r) {
    console.log(
      `goal 10,000 routes, open <= 0.1x yaml-ls: ${(big.o.open / big.r.open).toFixed(3)}x ${big.o.open <= 0.1 * big.r.open ? 'met' : 'NOT met'}`,
    );
    console.log(
      `goal 10,000 routes, edit <= 0.1x yaml-ls: ${(median(big.o.edits) / median(big.r.edits)).toFixed(3)}x ${median(big.o.edits) <= 0.1 * median(big.r.edits) ? 'met' : 'NOT met'}`,
    );
  }
  if (big) {
    console.log(
      `goal 10,000 routes, open within 1.5x floor: ${(big.o.open / big.f).toFixed(2)}x ${big.o.open <= 1.5 * big.f ? 'met' : 'NOT met'}`,
    );
    console.log(
      `goal 10,000 routes, edit within 1.5x floor: ${(median(big.o.edits) / big.f).toFixed(3)}x ${median(big.o.edits) <= 1.5 * big.f ? 'met' : 'NOT met'}`,
    );
  }
  if (mid)
    console.log(
      `goal 1,000 routes, edit median < 50 ms: ${fmt(median(mid.o.edits))} ${median(mid.o.edits) < 50 ? 'met' : 'NOT met'}`,
    );
  printHostileRows();
}

/** Every build's open time over the runs and its ratio to yaml-language-server's open in the same run. */
function printRuns(rows) {
  const spread = (xs, f) => `${f(median(xs))} (${f(Math.min(...xs))}-${f(Math.max(...xs))})`;
  const ratio = (x) => `${x.toFixed(3)}x`;
  console.log(
    `\nOpen over ${RUNS} run(s) (each build and yaml-language-server open a fresh copy of the table in turn, per run): median (min-max); the ratio is taken within each run; open CPU = CPU time of the server process (all threads) from didOpen to the diagnostics (yaml-language-server's open also waits its 200 ms debounce)`,
  );
  const head = [
    'routes',
    'build',
    'open',
    'edit (median, first run)',
    'open / yaml-ls open',
    'open CPU',
    'open CPU / yaml-ls CPU',
  ];
  const body = [];
  for (const { n, o, r, alongside } of rows) {
    for (const { name, m } of [
      { name: 'ours (this checkout)', m: o },
      ...alongside,
      { name: 'yaml-language-server', m: r },
    ]) {
      if (!m) continue;
      body.push([
        n.toLocaleString('en'),
        name,
        spread(m.opens, fmt),
        m.edits.length ? fmt(median(m.edits)) : '-',
        r && m !== r
          ? spread(
              m.opens.map((x, i) => x / r.opens[i]),
              ratio,
            )
          : '-',
        spread(m.cpus, fmt),
        r && m !== r
          ? spread(
              m.cpus.map((x, i) => x / r.cpus[i]),
              ratio,
            )
          : '-',
      ]);
    }
  }
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 1 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
  if (RUNS < 2) return;
  console.log('\nOpen / yaml-ls open in each run (Node flags of the server)');
  for (const { n, o, r, alongside, flags } of rows) {
    if (!r) continue;
    for (const { name, m } of [{ name: 'ours', m: o }, ...alongside]) {
      const ratios = m.opens.map((x, i) => (x / r.opens[i]).toFixed(3)).join(' ');
      console.log(`${n.toLocaleString('en')} ${name} (${flags.get(name).join(' ') || 'none'}): ${ratios}`);
    }
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
