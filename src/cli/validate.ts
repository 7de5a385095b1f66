// `session-ops validate [--json] [--kind routing|page|watch-config] [--source-root DIR] PATH...`: the same
// validation the language server runs, for CI. Files are validated as given; folders are walked
// with the bounded walk of src/language/fs/walk (skipping node_modules and dot-folders, within its
// depth and file caps; files in path order) and each file is validated by the document kind that
// claims it. Source-analysis pages are also checked as a set with the other pages of their folder
// (read from disk even when not named); a folder-level problem (a missing page) is reported on the
// folder's 10-fidelity-baseline when it was validated, else on its first validated page.
//   exit 0: no error    1: an error was found    2: usage or I/O error
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic } from '../core/diagnostics';
import { readFolderTexts } from '../language/fs/readFolder';
import { walk, WALK_MAX_DEPTH, WALK_MAX_FILES } from '../language/fs/walk';
import { joinKey } from '../core/keys';
import { registerBuiltinKinds } from '../../server/kinds/builtin';
import { runToEnd, type KindRegistry } from '../../server/kinds/registry';
import type { DocumentKind, GroupSettings, KindSettings } from '../../server/kinds/types';
import { describeError } from '../core/error-message';
import { UsageError, type ParsedArgs } from './args';
import { defineCommand, runCommand, type CommandIo } from './command';
import { EXIT } from './exit-codes';
import { diagnosticLine, jsonDiagnostic, type JsonDiagnostic } from './diagnostic-output';

export type { JsonDiagnostic };

const USAGE = `Usage: session-ops validate [--json] [--kind routing|page|watch-config] [--source-root DIR] PATH...

Validates routing tables (routing.yaml, routing.yml, *.routing.yaml, or YAML whose $schema points
at routing.schema.json) and source-analysis pages (<port>/source-analysis/01-source-overview[.md]
... 10-fidelity-baseline[.md]), each page alone and with the other pages of its folder, and
\`watch\` configurations (session-ops.yaml, *.session-ops.yaml). Folders
are walked recursively, skipping node_modules and dot-folders, at most ${WALK_MAX_DEPTH} folders deep
and ${WALK_MAX_FILES} files per folder given.

Options:
  --json             print exactly one JSON document: {"diagnostics":[{file,line,column,endLine,
                     endColumn,severity,code,message,source}]} (1-based lines and columns)
  --kind KIND        validate every given file as KIND, and only KIND files in folders
  --source-root DIR  check the source-test column of 10-fidelity-baseline against DIR (relative
                     to each port folder, the parent of source-analysis, or absolute)
  -h, --help         show this help

Example:
  session-ops validate --json routing.yaml ports/payments/source-analysis

Exit status: 0 no error, 1 an error was found, 2 usage or I/O error.`;

export interface ValidateIo extends CommandIo {
  /** The kinds to use (tests inject one); default: this build's kinds. */
  registry?: KindRegistry;
}

const defaultIo = (): ValidateIo => ({
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
});

interface ValidateOptions {
  json: boolean;
  /** --kind: validate every given file as this kind, and only files of it in folders. */
  only: DocumentKind | undefined;
  sourceRoot: string | undefined;
  paths: string[];
  registry: KindRegistry;
}

function validateOptions(a: ParsedArgs, io: ValidateIo): ValidateOptions {
  const kindId = a.values.get('--kind');
  const sourceRoot = a.values.get('--source-root');
  if (sourceRoot === '') throw new UsageError('--source-root needs a value');
  if (a.positionals.length === 0) throw new UsageError('no PATH given');
  const registry = io.registry ?? registerBuiltinKinds();
  let only: DocumentKind | undefined;
  if (kindId !== undefined) {
    only = registry.get(kindId);
    if (!only) {
      const known = registry
        .all()
        .map((k) => k.id)
        .join(', ');
      throw new UsageError(`unknown kind "${kindId}" (known: ${known})`);
    }
  }
  return { json: a.flags.has('--json'), only, sourceRoot, paths: a.positionals, registry };
}

export const validateCommand = defineCommand<ValidateOptions, ValidateIo>({
  name: 'validate',
  usage: USAGE,
  args: { flags: ['--json'], options: ['--kind', '--source-root'], positionals: Infinity },
  io: defaultIo,
  options: validateOptions,
  run: validate,
});

export const runValidate = (argv: string[], io: Partial<ValidateIo> = {}) => runCommand(validateCommand, argv, io);

async function validate(o: ValidateOptions, io: ValidateIo): Promise<number> {
  const { json, only, sourceRoot, paths, registry } = o;
  if (only?.unavailable) {
    io.stderr(`session-ops validate: --kind ${only.id} is not available in this build: ${only.unavailable}\n`);
    return EXIT.usage;
  }
  const settings: KindSettings = { extraGlobs: [], roots: [] };
  const kinds = only ? [only] : registry.all().filter((k) => !k.unavailable);
  const groupSettings: GroupSettings = sourceRoot ? { pagesSourceRoot: sourceRoot } : {};
  /** Every validated file, in order, with its diagnostics. */
  const checked: { shown: string; real: string; kind: DocumentKind; text: string; diags: Diagnostic[] }[] = [];
  let ioError = false;
  let files = 0;

  const validateFile = async (shown: string, real: string, explicit: boolean): Promise<void> => {
    let text: string;
    try {
      text = await fs.readFile(real, 'utf8');
    } catch (err) {
      io.stderr(`session-ops validate: cannot read ${shown}: ${errMessage(err)}\n`);
      ioError = true;
      return;
    }
    let kind: DocumentKind | undefined;
    if (only) kind = explicit || only.claims(real, text, settings) ? only : undefined;
    else {
      kind = kinds.find((k) => k.claims(real, text, settings));
      if (!kind && explicit) {
        kind = kinds.find((k) => k.fallbackFor?.(real));
        if (!kind) {
          io.stderr(`session-ops validate: cannot tell what kind of file ${shown} is; pass --kind\n`);
          ioError = true;
          return;
        }
      }
    }
    if (!kind) return;
    files++;
    checked.push({ shown, real, kind, text, diags: runToEnd(kind.open(real).validate(text)) });
  };

  /** Cross-file checks: each group folder once, with its other members read from disk. */
  const checkGroups = async (): Promise<void> => {
    const byFolder = new Map<string, { kind: DocumentKind; entries: typeof checked }>();
    for (const c of checked) {
      const folder = c.kind.groups?.folderOf(c.real);
      if (folder == null) continue;
      const key = joinKey(c.kind.id, path.resolve(folder));
      let g = byFolder.get(key);
      if (!g) byFolder.set(key, (g = { kind: c.kind, entries: [] }));
      g.entries.push(c);
    }
    for (const { kind, entries } of byFolder.values()) {
      const groups = kind.groups!;
      const folder = groups.folderOf(entries[0].real) as string;
      // The other members from disk (unreadable, gone or too large: not part of the set), then the named ones.
      const known = new Set(entries.map((e) => path.resolve(e.real)));
      const texts = await readFolderTexts(folder, (full) => groups.member(full) && !known.has(path.resolve(full)));
      for (const e of entries) texts.set(e.real, e.text);
      const cross = groups.check(texts, groupSettings, new Set(entries.map((e) => e.real)));
      for (const e of entries) {
        const more = cross.get(e.real) ?? [];
        if (more.length === 0) continue;
        e.diags = [...e.diags, ...more].sort(
          (a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
        );
      }
    }
  };

  const walkFolder = async (shownDir: string, realDir: string): Promise<void> => {
    const found = await walk(realDir, { include: (p) => kinds.some((k) => k.candidate(p, settings)) });
    for (const e of found.errors) {
      const shown = e.segments.reduce(joinShown, shownDir);
      io.stderr(`session-ops validate: cannot read folder ${shown}: ${errMessage(e.error)}\n`);
      ioError = true;
    }
    if (found.truncated)
      io.stderr(
        `session-ops validate: ${shownDir}: not every file was checked ` +
          `(a walk stops ${WALK_MAX_DEPTH} folders deep and after ${WALK_MAX_FILES} files); name the folders below separately\n`,
      );
    for (const f of found.files) await validateFile(f.segments.reduce(joinShown, shownDir), f.path, false);
  };

  for (const p of paths) {
    let st: import('node:fs').Stats;
    try {
      st = await fs.stat(p);
    } catch (err) {
      io.stderr(`session-ops validate: ${p}: ${errMessage(err)}\n`);
      ioError = true;
      continue;
    }
    if (st.isDirectory()) await walkFolder(p, p);
    else await validateFile(p, p, true);
  }
  await checkGroups();

  const out: JsonDiagnostic[] = [];
  for (const c of checked) for (const d of c.diags) out.push(jsonDiagnostic(c.shown, d));

  const errors = out.filter((d) => d.severity === 'error').length;
  const warnings = out.filter((d) => d.severity === 'warning').length;
  if (json) io.stdout(JSON.stringify({ diagnostics: out }) + '\n');
  else {
    for (const d of out) io.stdout(diagnosticLine(d));
    io.stderr(
      `${files} file${files === 1 ? '' : 's'} checked: ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}\n`,
    );
  }
  if (ioError) return EXIT.usage;
  return errors > 0 ? EXIT.failed : EXIT.done;
}

function joinShown(dir: string, name: string): string {
  if (dir.endsWith('/') || dir.endsWith(path.sep)) return dir + name;
  return `${dir}${dir.includes('\\') && !dir.includes('/') ? '\\' : '/'}${name}`;
}

function errMessage(err: unknown): string {
  if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT') return 'no such file or folder';
  return describeError(err);
}
