// `session-ops route --routing FILE --label Kind/X [--label ...] [--high-risk] [--model P/M
// --base-url URL [--directory DIR]] [--json]`: the effective route a ticket with these labels
// takes in the routing table (src/language/routing/resolve.ts). With --model, the provider listing is
// read (GET only) for the model's variant table, to map the route's effort to a variant.
//   exit 0  the route was resolved and printed
//   exit 1  the table failed validation (its diagnostics, as `validate` prints them), or the
//           backend could not be read or does not list the model
//   exit 2  usage, or the routing file could not be read
//   exit 3  ambiguous: Kind labels resolving to different routes (nothing resolved)
import { promises as fs } from 'node:fs';
import type { BackendClient } from '../core/backend/client';
import { describeError } from '../core/error-message';
import { MAX_TEXT_BYTES } from '../language/fs/readText';
import type { ModelRef } from '../core/model';
import { effectiveRouteLines, resolveRoute, type Resolution, type ResolveOptions } from '../language/routing';
import { routeJson } from '../language/routing/route-json';

export { routeJson };
import { modelArg } from './action-io';
import {
  cliBackend,
  clientFor,
  ENVIRONMENT_HELP,
  readingBackend,
  UsageError,
  type BackendArgs,
  type ParsedArgs,
} from './args';
import { defineCommand, runCommand, type CommandIo } from './command';
import { diagnosticLine, jsonDiagnostic } from './diagnostic-output';
import { EXIT } from './exit-codes';

const USAGE = `Usage: session-ops route --routing FILE --label Kind/X [--label ...] [options]

Prints the effective route a ticket with these labels takes in the routing table: the key that
matched (a Kind/* route, or default when none does), the entry skill and mode (a null skill is
natural-language routing), the stages skipped and kept, the preflight items injected (after
preflight.max_items: the oldest added_cycle dropped first, C9 before C10; items without a cycle
last, the later in the document first), the effort and the model variant it maps to, the notes,
the review budget, and for a Kind/Epic or Kind/Feature ticket the table's DAG blocks.
Only Kind/* labels count. A Kind label without a route of its own resolves to nothing; labels
resolving to routes of equal content are one route (the first given is "matched"); labels
resolving to routes that differ are ambiguous (exit 3). A table with an error resolves nothing.

Options:
  --routing FILE      the routing table (YAML)
  --label LABEL       a label of the ticket; repeat it for each label
  --high-risk         the ticket is high risk: review.max_rounds.high_risk instead of default
  --model P/M         the model the ticket would run on: its variant table (from the backend's
                      provider listing, GET only) maps the route's effort to a variant; without
                      it the variant is null ("no model was given")
  --base-url URL      the backend to read the provider listing from (with --model)
  --directory DIR     the directory whose provider listing is read (default: the current one)
  --timeout SECONDS   per-request timeout (default 15)
  --json              print one JSON document: {"matched", "entry": {"skill", "mode"}, "skip",
                      "keepGates", "preflight": [{"id", "item", "evidence", "addedCycle"}],
                      "preflightDropped", "effort", "variant", "notes", "reviewRounds", "dag":
                      null | {"route", "taskRoute", "singleGate", "reviewDepth"}};
                      ambiguous: {"ambiguous": [labels]}; invalid: {"diagnostics": [...]}
                      (as validate --json)

Example:
  session-ops route --routing routing.yaml --label Kind/Bug --model anthropic/claude-sonnet-4-5 \\
    --base-url http://127.0.0.1:4096 --json

Exit codes: 0 resolved, 1 the table failed validation (its diagnostics as validate prints them)
or the backend could not be read or does not list the model, 2 usage or the file could not be
read, 3 ambiguous labels.
${ENVIRONMENT_HELP}`;

export interface RouteIo extends CommandIo {
  env: Record<string, string | undefined>;
  cwd: () => string;
}

interface RouteOptions {
  file: string;
  text: string;
  labels: string[];
  highRisk: boolean;
  json: boolean;
  model: ModelRef | null;
  backend: BackendArgs | null;
  timeoutMs: number;
}

const defaultIo = (): RouteIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  cwd: () => process.cwd(),
});

/** The routing file's text, within the size cap every routing reader has (`dispatch --routing` too). */
export async function readRouting(file: string, flag = '--routing'): Promise<string> {
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) throw new UsageError(`${flag} ${file} is not a file`);
    if (st.size > MAX_TEXT_BYTES)
      throw new UsageError(`${flag} ${file} is larger than ${MAX_TEXT_BYTES / 1024 / 1024} MiB: not read`);
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException | null)?.code;
    throw new UsageError(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : describeError(err)}`);
  }
}

async function routeOptions(a: ParsedArgs, io: RouteIo): Promise<RouteOptions> {
  const file = a.values.get('--routing');
  if (!file) throw new UsageError('--routing FILE is required');
  const labels = a.lists?.get('--label') ?? [];
  if (labels.length === 0) throw new UsageError('--label is required (repeat it for each label of the ticket)');
  if (labels.some((l) => l.trim() === '')) throw new UsageError('--label needs a non-empty value');
  const model = modelArg(a);
  const baseUrlRaw = a.values.get('--base-url');
  if (model && !baseUrlRaw)
    throw new UsageError('--model needs --base-url (the variant table is read from the backend)');
  if (!model && (baseUrlRaw !== undefined || a.values.has('--directory')))
    throw new UsageError('--base-url and --directory are read only with --model');
  let backend: BackendArgs | null = null;
  if (model && baseUrlRaw) {
    const directory = a.values.get('--directory') ?? io.cwd();
    if (directory.trim() === '') throw new UsageError('--directory needs a value');
    backend = cliBackend(baseUrlRaw, directory);
  }
  const timeoutRaw = a.values.get('--timeout');
  let timeoutMs = 15_000;
  if (timeoutRaw !== undefined) {
    const n = Number(timeoutRaw);
    if (timeoutRaw.trim() === '' || !Number.isFinite(n) || n < 0.1)
      throw new UsageError(`--timeout must be a number >= 0.1, got "${timeoutRaw}"`);
    timeoutMs = Math.round(n * 1000);
  }
  return {
    file,
    text: await readRouting(file),
    labels,
    highRisk: a.flags.has('--high-risk'),
    json: a.flags.has('--json'),
    model,
    backend,
    timeoutMs,
  };
}

export const routeCommand = defineCommand<RouteOptions, RouteIo>({
  name: 'route',
  usage: USAGE,
  args: {
    flags: ['--json', '--high-risk'],
    options: ['--routing', '--model', '--base-url', '--directory', '--timeout'],
    lists: ['--label'],
  },
  io: defaultIo,
  options: routeOptions,
  run: route,
});

export const runRoute = (argv: string[], io: Partial<RouteIo> = {}) => runCommand(routeCommand, argv, io);

/** The model's variant names from the provider listing; null: it has no variant table. */
async function modelVariants(client: BackendClient, directory: string, model: ModelRef): Promise<string[] | null> {
  const listing = await client.listProviders(directory);
  const provider = listing.providers.find((p) => p.id === model.providerID);
  if (!provider) throw new NotListed(`the backend lists no provider "${model.providerID}"`);
  // a provider that lists its models must list this one; one that lists none (the spec's dialect
  // shows no models) cannot say, and has no variant table either
  if (provider.models.length > 0 && !provider.models.includes(model.modelID))
    throw new NotListed(`provider "${model.providerID}" lists no model "${model.modelID}"`);
  const names = provider.variants?.[model.modelID];
  return names && names.length > 0 ? [...names] : null;
}

class NotListed extends Error {}

async function route(o: RouteOptions, io: RouteIo): Promise<number> {
  const resolveWith = (opts: ResolveOptions): number => {
    const r = resolveRoute(o.text, o.labels, { highRisk: o.highRisk, ...opts });
    if (r.kind !== 'route') return printUnresolved('route', o.file, r, o.json, io);
    if (o.json) io.stdout(JSON.stringify(routeJson(r.route)) + '\n');
    else io.stdout(effectiveRouteLines(r.route).join('\n') + '\n');
    return EXIT.done;
  };
  if (!o.model || !o.backend) return resolveWith({});
  // an invalid table or ambiguous labels are answered without reading the backend
  const first = resolveRoute(o.text, o.labels, { highRisk: o.highRisk });
  if (first.kind !== 'route') return resolveWith({});
  const client = clientFor(o.backend, io.env, { timeoutMs: o.timeoutMs });
  const model = o.model;
  const directory = o.backend.directory;
  return readingBackend('route', client, io, async () => {
    let variants: string[] | null;
    try {
      variants = await modelVariants(client, directory, model);
    } catch (err) {
      if (!(err instanceof NotListed)) throw err;
      io.stderr(`session-ops route: ${err.message}: no variant to map the effort to\n`);
      return EXIT.failed;
    }
    return resolveWith({ modelVariants: variants });
  });
}

/**
 * What `route` (and `dispatch --routing`) print when the labels resolve no route: an invalid table's
 * diagnostics as `validate` prints them (exit 1), or the ambiguous labels (exit 3).
 */
export function printUnresolved(
  command: string,
  file: string,
  r: Exclude<Resolution, { kind: 'route' }>,
  json: boolean,
  io: CommandIo,
): number {
  if (r.kind === 'invalid') {
    const out = r.diagnostics.map((d) => jsonDiagnostic(file, d));
    const errors = out.filter((d) => d.severity === 'error').length;
    if (json) io.stdout(JSON.stringify({ diagnostics: out }) + '\n');
    else for (const d of out) io.stdout(diagnosticLine(d));
    io.stderr(
      `session-ops ${command}: ${file} failed validation (${errors} error${errors === 1 ? '' : 's'}): no route resolved\n`,
    );
    return EXIT.failed;
  }
  if (json) io.stdout(JSON.stringify({ ambiguous: r.labels }) + '\n');
  io.stderr(
    `session-ops ${command}: ambiguous: ${r.labels.join(', ')} resolve to different routes; give the ticket one Kind label\n`,
  );
  return EXIT.refused;
}
