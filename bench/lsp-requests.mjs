#!/usr/bin/env node
// On-demand benchmark (issue 31 item 6, "every request answered in time"): every request kind the
// language server answers (diagnostics, hover, document symbols, completion, code lenses), each
// sent right after a one-token edit (the middle route's effort, alternately made invalid and valid
// again), timed from the edit to the answer (diagnostics: to their publication), on the table of
// --routes routes (10,000) and on the table at the size limit (--cap-routes, 14,000 routes, 7.7 MiB,
// under the 8 MiB sessionOps.maxDocumentMB), --runs times. Our server first (every kind), then
// yaml-language-server (the project's schema associated with routing.yaml, as bench/lsp.mjs starts
// it) on the kind slowest for ours at the size limit (--reference-kinds all: every kind), in the
// same run. Each server and document gets a fresh server process (what one document costs a server
// never delays the next); after each answer the bench waits for that edit's diagnostics, so every
// request starts from a quiet server.
//
// Bounded time: a request (or the open) with no answer within --deadline seconds (--open-deadline
// for the open) is recorded as "no answer within N s", that server process is stopped and its
// further runs on that document are recorded as not made; a measurement that would start past
// --budget seconds from the start is not made either (said so in the table).
//
//   npm run build && node bench/lsp-requests.mjs [--runs 3] [--routes 10000] [--cap-routes 14000]
//     [--deadline 30] [--open-deadline 120] [--budget 300] [--reference-kinds slowest|all] [--no-redhat]
// --smoke: 100 and 200 routes, 1 run, deadlines of 10 s, yaml-language-server on the 200 only (npm test's
//   bench-smoke layer).
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuMs, isDiag, loadServerExecArgv, startOurs, startRedhat } from './lsp/client.mjs';
import { generate } from './lsp/generate.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const SMOKE = args.includes('--smoke');
const RUNS = Number(opt('--runs', SMOKE ? '1' : '3'));
const ROUTES = Number(opt('--routes', SMOKE ? '100' : '10000'));
const CAP_ROUTES = Number(opt('--cap-routes', SMOKE ? '200' : '14000'));
const DEADLINE_MS = Number(opt('--deadline', SMOKE ? '10' : '30')) * 1000;
const OPEN_DEADLINE_MS = Number(opt('--open-deadline', SMOKE ? '10' : '120')) * 1000;
const BUDGET_MS = Number(opt('--budget', SMOKE ? '60' : '300')) * 1000;
const REFERENCE_KINDS = opt('--reference-kinds', 'slowest');
const REDHAT = !args.includes('--no-redhat');
// Not under a dot-folder: yaml-language-server's schema globs do not match paths with one.
const work = path.join(os.tmpdir(), 'session-ops-bench-requests');
const started = performance.now();

/** The request kinds, each with the server capability that offers it. */
const KINDS = [
  { id: 'diagnostics', capability: undefined },
  { id: 'hover', capability: 'hoverProvider' },
  { id: 'document symbols', capability: 'documentSymbolProvider' },
  { id: 'completion', capability: 'completionProvider' },
  { id: 'code lenses', capability: 'codeLensProvider' },
];

/** A promise's value, or { timedOut: true } after `ms`. */
function within(p, ms) {
  let t;
  const settled = p.finally(() => clearTimeout(t));
  settled.catch(() => {}); // a rejection after the deadline is not this caller's any more
  return Promise.race([settled, new Promise((r) => (t = setTimeout(() => r({ timedOut: true }), ms)))]);
}

/** The document under test: its text, the middle route's key line and its effort line. */
function documentOf(label, routes) {
  const text = generate(routes);
  const lines = text.split('\n');
  const keyLine = lines.indexOf(`  Kind/Route${String(Math.floor(routes / 2)).padStart(5, '0')}:`);
  let effortLine = keyLine;
  while (!lines[effortLine].startsWith('    effort:')) effortLine++;
  return { label, routes, text, keyLine, effortLine, mib: Buffer.byteLength(text) / (1024 * 1024) };
}

/** Sends the request of `kind` for `uri` (after the edit); resolves with its answer. */
function requestOf(client, kind, uri, doc) {
  const textDocument = { uri };
  switch (kind) {
    case 'hover':
      return client.request('textDocument/hover', { textDocument, position: { line: doc.keyLine, character: 4 } });
    case 'document symbols':
      return client.request('textDocument/documentSymbol', { textDocument });
    case 'completion':
      return client.request('textDocument/completion', {
        textDocument,
        position: { line: doc.effortLine, character: 12 },
      });
    case 'code lenses':
      return client.request('textDocument/codeLens', { textDocument });
    default:
      throw new Error(kind);
  }
}

/** What an answer holds, for the table (entries, items, lenses). */
function sizeOf(kind, answer) {
  if (answer?.error) return `error ${answer.error.code}`;
  if (kind === 'hover') return answer ? 'a hover' : 'null';
  if (kind === 'completion') return `${(Array.isArray(answer) ? answer : (answer?.items ?? [])).length} items`;
  if (kind === 'document symbols') {
    const count = (xs) => xs.reduce((k, x) => k + 1 + count(x.children ?? []), 0);
    return `${Array.isArray(answer) ? count(answer) : 0} entries`;
  }
  if (kind === 'code lenses') return `${Array.isArray(answer) ? answer.length : 0} lenses`;
  return '';
}

/**
 * One server on one document: a fresh process opens it, then `kinds` are measured `RUNS` times
 * (kinds in turn within a run). Returns kind -> list of { ms, cpu, size } or { none: reason }.
 */
async function measure(server, doc, kinds) {
  const out = new Map(kinds.map((k) => [k, []]));
  const notMade = (why) => {
    for (const k of kinds) while (out.get(k).length < RUNS) out.get(k).push({ none: why });
  };
  if (performance.now() - started > BUDGET_MS) {
    notMade(`not made: past the bench's ${BUDGET_MS / 1000} s budget`);
    return { results: out };
  }
  const client = await server.start();
  const dir = path.join(work, `${server.name}-${doc.label}`);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'routing.yaml');
  writeFileSync(file, doc.text);
  const uri = pathToFileURL(file).href;
  const caps = client.capabilities ?? {};
  let open;
  try {
    const t = performance.now();
    const opened = within(client.waitFor(isDiag(uri), OPEN_DEADLINE_MS + 1000), OPEN_DEADLINE_MS);
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'yaml', version: 1, text: doc.text } });
    const r = await opened.catch(() => ({ timedOut: true }));
    if (r.timedOut) {
      notMade(`no diagnostics for the open within ${OPEN_DEADLINE_MS / 1000} s`);
      return { results: out, open: { none: `no answer within ${OPEN_DEADLINE_MS / 1000} s` } };
    }
    if (r.msg.params.diagnostics.length !== 0)
      throw new Error(`${server.name}: expected a valid table, got ${JSON.stringify(r.msg.params.diagnostics[0])}`);
    open = { ms: r.at - t };
    let version = 1;
    measuring: for (let run = 0; run < RUNS; run++)
      for (const kind of kinds) {
        const spec = KINDS.find((k) => k.id === kind);
        if (spec.capability && !caps[spec.capability]) {
          out.get(kind).push({ none: 'not offered by the server' });
          continue;
        }
        if (performance.now() - started > BUDGET_MS) {
          notMade(`not made: past the bench's ${BUDGET_MS / 1000} s budget`);
          break measuring;
        }
        const broken = version % 2 === 1;
        const published = client.waitFor(isDiag(uri, broken ? 1 : 0), DEADLINE_MS * 2 + 1000);
        published.catch(() => {});
        const cpu0 = cpuMs(client.proc.pid);
        const t = performance.now();
        client.notify('textDocument/didChange', {
          textDocument: { uri, version: ++version },
          contentChanges: [
            {
              range: { start: { line: doc.effortLine, character: 12 }, end: { line: doc.effortLine, character: 16 } },
              text: broken ? 'hihg' : 'high',
            },
          ],
        });
        const answer =
          kind === 'diagnostics'
            ? await within(
                published.then((r) => r.at),
                DEADLINE_MS,
              )
            : await within(requestOf(client, kind, uri, doc), DEADLINE_MS);
        if (answer?.timedOut) {
          out.get(kind).push({ none: `no answer within ${DEADLINE_MS / 1000} s` });
          notMade(`not made: an earlier request got no answer within ${DEADLINE_MS / 1000} s`);
          break measuring;
        }
        const ms = (kind === 'diagnostics' ? answer : performance.now()) - t;
        const cpu = cpuMs(client.proc.pid) - cpu0;
        // the edit's diagnostics too, so that the next request starts from a quiet server
        const settled = await within(published, DEADLINE_MS);
        out.get(kind).push({ ms, cpu, size: kind === 'diagnostics' ? '' : sizeOf(kind, answer) });
        if (settled?.timedOut) {
          notMade(`not made: the edit's diagnostics did not come within ${DEADLINE_MS / 1000} s`);
          break measuring;
        }
      }
  } finally {
    await client.stop();
  }
  return { results: out, open };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmt = (ms) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(0)} ms`);
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');

/** median (min-max) of the answered runs, and what the others got. */
function spread(list, field = 'ms') {
  const ok = list.filter((x) => x[field] !== undefined).map((x) => x[field]);
  const none = list.filter((x) => x.none);
  const why = [...new Set(none.map((x) => x.none))].map((w) => `${none.filter((x) => x.none === w).length}x ${w}`);
  const shown = ok.length
    ? `${fmt(median(ok))} (${fmt(Math.min(...ok))}-${fmt(Math.max(...ok))}), ${ok.length} run${ok.length > 1 ? 's' : ''}`
    : '-';
  return why.length ? `${shown}; ${why.join('; ')}` : shown;
}

function table(head, body) {
  const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const row = (cells) => `| ${cells.map((c, i) => String(c).padEnd(w[i])).join(' | ')} |`;
  console.log(row(head));
  console.log(`|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`);
  for (const b of body) console.log(row(b));
}

async function main() {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const loadAtStart = load();
  const execArgv = await loadServerExecArgv();
  const serverJs = path.join(root, 'dist', 'server.js');
  const ours = { name: 'ours', start: () => startOurs('ours', serverJs, execArgv, work) };
  const redhat = { name: 'yaml-language-server', start: () => startRedhat(work, 'yaml-language-server') };
  const docs = [documentOf(`${ROUTES} routes`, ROUTES), documentOf(`size limit (${CAP_ROUTES} routes)`, CAP_ROUTES)];
  const kinds = KINDS.map((k) => k.id);
  const got = new Map();
  for (const doc of docs) {
    process.stderr.write(`ours, ${doc.label} (${doc.mib.toFixed(2)} MiB)...\n`);
    got.set(`ours ${doc.label}`, await measure(ours, doc, kinds));
  }
  const cap = got.get(`ours ${docs[1].label}`).results;
  const slowest = kinds
    .map((k) => ({
      k,
      m: median(
        cap
          .get(k)
          .filter((x) => x.ms !== undefined)
          .map((x) => x.ms),
      ),
    }))
    .sort((a, b) => (Number.isNaN(b.m) ? 1 : b.m) - (Number.isNaN(a.m) ? 1 : a.m))[0].k;
  const refKinds = REFERENCE_KINDS === 'all' ? kinds : [slowest];
  if (REDHAT)
    // --smoke: the reference on the second table only (a yaml-language-server process takes seconds to start and stop)
    for (const doc of SMOKE ? docs.slice(1) : docs) {
      process.stderr.write(`yaml-language-server, ${doc.label}: ${refKinds.join(', ')}...\n`);
      got.set(`redhat ${doc.label}`, await measure(redhat, doc, refKinds));
    }
  const seconds = (performance.now() - started) / 1000;

  console.log(
    `\nEvery request kind after a one-token edit (the middle route's effort, alternately invalid and valid), timed from the edit to the answer (diagnostics: to their publication), ${RUNS} run(s) per kind, a fresh server process per document: median (min-max) of the answered runs; CPU = the server process's CPU time (all threads) from the edit to the answer`,
  );
  const body = [];
  for (const doc of docs)
    for (const [who, key] of [
      ['ours', 'ours'],
      ['yaml-language-server', 'redhat'],
    ]) {
      const m = got.get(`${key} ${doc.label}`);
      if (!m) continue;
      for (const [kind, list] of m.results) {
        body.push([
          `${doc.label}, ${doc.mib.toFixed(2)} MiB`,
          who,
          kind,
          spread(list),
          spread(list, 'cpu'),
          list.find((x) => x.size !== undefined)?.size ?? '',
        ]);
      }
    }
  table(['document', 'server', 'request', 'edit -> answer', 'CPU', 'answer'], body);

  console.log(
    `\nThe slowest request kind for ours at the size limit: ${slowest}. Side by side (the same measurement, the same run):`,
  );
  const side = [];
  for (const doc of docs) {
    const o = got.get(`ours ${doc.label}`);
    const r = got.get(`redhat ${doc.label}`);
    const oms = o.results.get(slowest).filter((x) => x.ms !== undefined);
    const rms = r?.results.get(slowest).filter((x) => x.ms !== undefined) ?? [];
    side.push([
      `${doc.label}, ${doc.mib.toFixed(2)} MiB`,
      slowest,
      spread(o.results.get(slowest)),
      r ? spread(r.results.get(slowest)) : `not measured (${REDHAT ? '--smoke' : '--no-redhat'})`,
      oms.length && rms.length ? `${(median(oms.map((x) => x.ms)) / median(rms.map((x) => x.ms))).toFixed(3)}x` : '-',
      o.open ? (o.open.ms !== undefined ? fmt(o.open.ms) : o.open.none) : '-',
      r?.open ? (r.open.ms !== undefined ? fmt(r.open.ms) : r.open.none) : '-',
    ]);
  }
  table(
    ['document', 'request', 'ours', 'yaml-language-server', 'ours / yaml-ls (medians)', 'ours open', 'yaml-ls open'],
    side,
  );

  const worst = (doc) =>
    Math.max(
      ...[...got.get(`ours ${doc.label}`).results.values()].flat().map((x) => (x.ms === undefined ? Infinity : x.ms)),
    );
  const w10k = worst(docs[0]);
  const wcap = worst(docs[1]);
  console.log(
    `goal every request kind within 1 s at ${ROUTES.toLocaleString('en')} routes: slowest ${fmt(w10k)} ${w10k < 1000 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `goal every request kind within 5 s at the size limit: slowest ${fmt(wcap)} ${wcap < 5000 ? 'met' : 'NOT met'}`,
  );
  console.log(
    `machine: ${os.cpus().length} cores, load average ${loadAtStart} at the start and ${load()} at the end (1, 5, 15 min), Node ${process.version}; the bench took ${seconds.toFixed(0)} s`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
