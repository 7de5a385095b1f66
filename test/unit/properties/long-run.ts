// The long property run (issue 28 item 11): `npm run props -- --runs 100000 [--seed N]
// [--only id,id] [--batch 500] [--out file.json]`. Fleets are generated in batches (seed, seed+1,
// ...); each batch runs each fleet through the harness once and checks every selected property on
// it (each its own fast-check run over the same fleets; the first failure of a property is shrunk,
// later ones are only counted). Prints the count and the time, and per property its checks, the
// batches it failed in, and its first counterexample (seed, path, shrunk fleet: written to --out
// for ./regressions.json). Exit 1 when a property of the default run failed.
import fc from 'fast-check';
import fs from 'node:fs';
import path from 'node:path';
import { examplesFor, fleetProperty, TraceCache } from '../../support/fleet/check';
import { PROPERTIES, type Property } from '../../support/fleet/invariants';
import { startSpecServer, type SpecServer } from '../../support/spec-server';

interface Args {
  runs: number;
  seed: number;
  only: string[] | null;
  batch: number;
  out: string;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    runs: 1_000,
    seed: Date.now() % 2_147_483_647,
    only: null,
    batch: 500,
    out: 'test-results/props-failures.json',
  };
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (seen.has(flag)) throw new Error(`${flag} given twice`);
    seen.add(flag);
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    const int = (v: string, min: number) => {
      if (!/^\d+$/.test(v) || Number(v) < min) throw new Error(`${flag} must be an integer >= ${min}, not ${v}`);
      return Number(v);
    };
    if (flag === '--runs') args.runs = int(value(), 1);
    else if (flag === '--seed') args.seed = int(value(), 0);
    else if (flag === '--batch') args.batch = int(value(), 1);
    else if (flag === '--only') args.only = value().split(',');
    else if (flag === '--out') args.out = value();
    else throw new Error(`unknown flag ${flag} (--runs N, --seed N, --only id,id, --batch N, --out file)`);
  }
  return args;
}

interface Result {
  property: Property;
  checks: number;
  failedBatches: number[];
  first: { seed: number; path: string; error: string; counterexample: unknown } | null;
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  let selected = PROPERTIES;
  if (args.only) {
    const unknown = args.only.filter((id) => !PROPERTIES.some((p) => p.id === id));
    if (unknown.length) throw new Error(`unknown properties: ${unknown.join(', ')}`);
    selected = PROPERTIES.filter((p) => args.only!.includes(p.id));
  }
  const server: SpecServer = await startSpecServer();
  const results = selected.map<Result>((property) => ({ property, checks: 0, failedBatches: [], first: null }));
  const started = Date.now();
  let fleets = 0;
  let harnessRuns = 0;
  // Ctrl+C (or SIGTERM) ends the run after the batch under way, with the summary of what ran.
  let stopped = false;
  const stop = () => {
    if (stopped) process.exit(130);
    stopped = true;
    console.log('  stopping after this batch (again to quit at once)');
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    for (let b = 0; fleets < args.runs && !stopped; b++) {
      const n = Math.min(args.batch, args.runs - fleets);
      const seed = (args.seed + b) % 2_147_483_647;
      const cache = new TraceCache(() => server, n + 50);
      for (const r of results) {
        const out = await fc.check(fleetProperty(r.property, cache), {
          numRuns: n,
          seed,
          endOnFailure: r.first !== null,
          examples: b === 0 ? examplesFor(r.property) : [],
        });
        r.checks += out.numRuns;
        if (out.failed) {
          r.failedBatches.push(seed);
          if (!r.first) {
            const error = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
            r.first = { seed: out.seed, path: out.counterexamplePath ?? '', error, counterexample: out.counterexample };
          }
        }
      }
      fleets += n;
      harnessRuns += cache.runs;
      cache.clear();
      const s = ((Date.now() - started) / 1000).toFixed(0);
      process.stdout.write(`  ${fleets}/${args.runs} fleets, ${harnessRuns} harness runs, ${s} s\n`);
    }
  } finally {
    await server.stop();
  }
  const seconds = (Date.now() - started) / 1000;
  const checks = results.reduce((n, r) => n + r.checks, 0);
  console.log(
    `\n${stopped ? `stopped early: ` : ''}${fleets} generated fleets (seed ${args.seed}, batches of ${args.batch}), ${results.length} properties: ${checks} property checks, ${harnessRuns} fleets run through the core (shrinking included), in ${seconds.toFixed(1)} s`,
  );
  for (const r of results) {
    const verdict = r.failedBatches.length ? `FAILED in ${r.failedBatches.length} batch(es)` : 'held';
    console.log(`  ${r.property.id.padEnd(26)} ${String(r.checks).padStart(7)} checks  ${verdict}`);
    if (r.first)
      console.log(`      first: seed ${r.first.seed}, path "${r.first.path}": ${r.first.error.split('\n')[0]}`);
  }
  const failures = results
    .filter((r) => r.first)
    .map((r) => ({
      property: r.property.id,
      seed: r.first!.seed,
      path: r.first!.path,
      error: r.first!.error,
      fleet: (r.first!.counterexample as unknown[] | null)?.[0] ?? null,
    }));
  fs.mkdirSync(path.dirname(args.out), { recursive: true });
  fs.writeFileSync(args.out, JSON.stringify(failures, null, 2));
  if (failures.length) console.log(`counterexamples written to ${args.out}`);
  return results.some((r) => r.first) ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : String(err));
    process.exit(2);
  },
);
