// 01-source-overview: project name, language/runtime, framework, feature scope, source file count,
// source line count, functional modules. Written as a two-column `Field | Value` table or as a
// `- Label: value` / `- **Label**: value` list; modules as a comma-separated value, as bullets
// nested under the modules item, or as bullets (or a table) under a `Functional modules` heading.

import type { List, ListItem } from 'mdast';
import type { Diagnostic, Range } from '../../core/diagnostics';
import { normalizeHeader } from './columns';
import { IdRegistry, lineOf, PageCodes, Reporter } from './diag';
import {
  cellAt,
  endOffset,
  firstLineRange,
  itemLeadText,
  listsOf,
  pageAnchor,
  ParsedDoc,
  squash,
  startOffset,
  tablesOf,
  titleOf,
  type HeadingInfo,
} from './markdown';
import type { Located, OverviewField, OverviewFieldKey, OverviewModel } from './model';

const LABELS: Record<OverviewFieldKey, { label: string; aliases: string[] }> = {
  projectName: { label: 'Project name', aliases: ['project name', 'project', 'name', 'project title'] },
  language: {
    label: 'Language/runtime',
    aliases: [
      'language/runtime',
      'language',
      'runtime',
      'languages',
      'language and runtime',
      'language/runtimes',
      'languages/runtime',
    ],
  },
  framework: { label: 'Framework', aliases: ['framework', 'frameworks', 'main framework'] },
  featureScope: { label: 'Feature scope', aliases: ['feature scope', 'scope', 'features', 'feature set'] },
  fileCount: {
    label: 'Source file count',
    aliases: [
      'source file count',
      'file count',
      'source files',
      'number of source files',
      'files',
      'source file number',
      'source files count',
    ],
  },
  lineCount: {
    label: 'Source line count',
    aliases: [
      'source line count',
      'line count',
      'source lines',
      'lines of code',
      'loc',
      'source loc',
      'number of source lines',
      'source lines count',
    ],
  },
  modules: {
    label: 'Functional modules',
    aliases: ['functional modules', 'list of functional modules', 'modules', 'module list', 'functional module list'],
  },
};

const KEYS = Object.keys(LABELS) as OverviewFieldKey[];

export function labelKey(label: string): OverviewFieldKey | null {
  const n = normalizeHeader(label);
  return KEYS.find((k) => LABELS[k].aliases.includes(n)) ?? null;
}

const FIELD_TABLE_HEADERS = ['field', 'label', 'key', 'item', 'property', 'attribute', 'name', 'metric'];

/** A value not filled in yet. "none" and "n/a" are answers (a project without a framework). */
function isUnfilled(value: string): boolean {
  return /^(?:|tbd|todo|\?+|\.\.\.|…)$/i.test(value.trim());
}

function isModulesHeading(h: HeadingInfo | null): boolean {
  return h !== null && labelKey(h.text) === 'modules';
}

/** `- Label: value` → label, value and the value's range (after the colon and any closing emphasis). */
function splitItem(doc: ParsedDoc, item: ListItem): { label: string; value: string; valueRange: Range } | null {
  const lead = itemLeadText(item);
  const colon = lead.indexOf(':');
  if (colon <= 0) return null;
  const para = item.children[0];
  const s = startOffset(para);
  const lineEnd = doc.lines.lineEnd(doc.lines.position(s).line);
  const e = Math.min(endOffset(para), lineEnd);
  const raw = doc.text.slice(s, e);
  let v = raw.indexOf(':') + 1;
  while (v < raw.length && /[\s*_]/.test(raw[v])) v++;
  let end = raw.length;
  while (end > v && /\s/.test(raw[end - 1])) end--;
  return {
    label: lead.slice(0, colon).trim(),
    value: squash(lead.slice(colon + 1)),
    valueRange: doc.lines.range(s + v, s + Math.max(v, end)),
  };
}

/** Splits a comma-separated value into located names. */
function splitModules(doc: ParsedDoc, value: string, range: Range): Located[] {
  const out: Located[] = [];
  const base = doc.lines.offset(range.start);
  const raw = doc.text.slice(base, doc.lines.offset(range.end));
  let from = 0;
  for (const name of value
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0)) {
    const at = raw.indexOf(name, from);
    if (at >= 0) {
      out.push({ text: name, range: doc.lines.range(base + at, base + at + name.length) });
      from = at + name.length;
    } else out.push({ text: name, range });
  }
  return out;
}

function bulletModules(doc: ParsedDoc, list: List): Located[] {
  return list.children
    .map((item) => ({ text: itemLeadText(item), range: firstLineRange(doc, item) }))
    .filter((m) => m.text.length > 0);
}

export function analyze01(doc: ParsedDoc, filePath: string): { model: OverviewModel; diagnostics: Diagnostic[] } {
  const report = new Reporter();
  const tables = tablesOf(doc);
  const fields: OverviewField[] = [];
  const moduleLists: Located[][] = [];
  let fieldsAnchor: Range | null = null;

  // Tables: two-column field tables; under a modules heading, the first column lists modules.
  for (const t of tables) {
    if (isModulesHeading(t.section)) {
      moduleLists.push(
        t.rows
          .map((r) => cellAt(r, 0))
          .filter((c) => c.text.length > 0)
          .map((c) => ({ text: c.text, range: c.range })),
      );
      continue;
    }
    const isFieldTable = t.columns.length === 2 || FIELD_TABLE_HEADERS.includes(normalizeHeader(t.columns[0] ?? ''));
    if (!isFieldTable) continue;
    fieldsAnchor ??= t.header.range;
    for (const row of t.rows) {
      const labelCell = cellAt(row, 0);
      const valueCell = cellAt(row, 1);
      const key = labelKey(labelCell.text);
      if (key)
        fields.push({
          key,
          label: labelCell.text,
          value: valueCell.text,
          range: row.range,
          valueRange: valueCell.range,
        });
    }
  }

  // Lists: field items, or module bullets under a modules heading.
  for (const { list, section } of listsOf(doc)) {
    if (isModulesHeading(section)) {
      moduleLists.push(bulletModules(doc, list));
      continue;
    }
    for (const item of list.children) {
      const parts = splitItem(doc, item);
      const key = parts ? labelKey(parts.label) : null;
      if (!parts || !key) continue;
      fieldsAnchor ??= firstLineRange(doc, item);
      fields.push({
        key,
        label: parts.label,
        value: parts.value,
        range: firstLineRange(doc, item),
        valueRange: parts.valueRange,
      });
      if (key === 'modules') {
        const nested = item.children.find((c): c is List => c.type === 'list');
        if (nested) moduleLists.push(bulletModules(doc, nested));
      }
    }
  }

  const modulesHeading = doc.headings.find((h) => isModulesHeading(h)) ?? null;
  const byKey = new Map<OverviewFieldKey, OverviewField>();
  const seen = new IdRegistry();
  for (const f of fields) {
    const prior = seen.seen(f.key, f.range);
    if (prior) {
      report.warning(
        f.range,
        PageCodes.duplicateField,
        `"${LABELS[f.key].label}" is already given on line ${lineOf(prior)}; this one is ignored.`,
      );
      continue;
    }
    byKey.set(f.key, f);
  }

  const anchor = fieldsAnchor ?? pageAnchor(doc);
  const textOf = (key: OverviewFieldKey): string | null => {
    const f = byKey.get(key);
    return f && !isUnfilled(f.value) ? f.value : null;
  };

  // Modules: from the field's value (comma-separated) and/or bullets.
  const modulesField = byKey.get('modules');
  let modules: Located[] = [];
  if (modulesField && !isUnfilled(modulesField.value))
    modules = splitModules(doc, modulesField.value, modulesField.valueRange);
  for (const list of moduleLists) modules = modules.concat(list);

  for (const key of KEYS) {
    const f = byKey.get(key);
    const label = LABELS[key].label;
    if (key === 'modules') {
      if (modules.length > 0) continue;
      if (f)
        report.error(
          f.range,
          PageCodes.emptyField,
          `"${label}" lists no modules: give them comma-separated or as bullets.`,
        );
      else if (modulesHeading)
        report.error(
          modulesHeading.range,
          PageCodes.emptyField,
          `"${label}" lists no modules: add bullets under this heading.`,
        );
      else report.error(anchor, PageCodes.missingField, `The overview has no "${label}" entry.`, { field: key, label });
      continue;
    }
    if (!f) {
      report.error(anchor, PageCodes.missingField, `The overview has no "${label}" entry.`, { field: key, label });
      continue;
    }
    if (isUnfilled(f.value)) {
      report.error(f.range, PageCodes.emptyField, `"${label}" has no value.`);
      continue;
    }
    if ((key === 'fileCount' || key === 'lineCount') && !/^\d+$/.test(f.value)) {
      report.error(
        f.valueRange,
        PageCodes.invalidCount,
        `"${label}" must be a non-negative integer written in plain digits, not "${f.value}".`,
      );
    }
  }

  const count = (key: OverviewFieldKey): number | null => {
    const v = textOf(key);
    return v !== null && /^\d+$/.test(v) ? Number(v) : null;
  };

  const model: OverviewModel = {
    kind: '01-source-overview',
    filePath,
    text: doc.text,
    title: titleOf(doc),
    headings: doc.headings,
    tables,
    fields,
    projectName: textOf('projectName'),
    language: textOf('language'),
    framework: textOf('framework'),
    featureScope: textOf('featureScope'),
    fileCount: count('fileCount'),
    lineCount: count('lineCount'),
    modules,
  };
  return { model, diagnostics: report.diagnostics };
}
