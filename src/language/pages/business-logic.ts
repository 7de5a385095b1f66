// 04-business-logic: rules `RULE-<nn>` (unique) as bullets grouped under feature headings, each
// with an executable assertion (a code span on its line or a fenced block indented under it),
// plus an `Edge cases` heading over bullets.

import type { ListItem, Nodes } from 'mdast';
import type { Diagnostic, Range } from '../../core/diagnostics';
import { normalizeHeader } from './columns';
import { IdRegistry, lineOf, PageCodes, Reporter } from './diag';
import { RULE_RE } from './id-formats';
import {
  endOffset,
  firstLineRange,
  itemLeadText,
  listsOf,
  nodeRange,
  pageAnchor,
  ParsedDoc,
  squash,
  startOffset,
  tablesOf,
  titleOf,
  type HeadingInfo,
} from './markdown';
import type { BusinessLogicModel, Feature, Located, Rule } from './model';

/** A leading rule id as written ("RULE-01", "Rule 1", "RULE-1a"), valid or not. */
const RULE_LEAD = /^(rule[-_ ]?[0-9a-z]*\d[0-9a-z]*|rule-\S*?)(?=[\s:.,;—–)]|$)/i;

export function isEdgeCasesHeading(h: HeadingInfo | null): boolean {
  return h !== null && /^edge cases?\b/.test(normalizeHeader(h.text));
}

/** A code span that is more than a bare name or id reads as an assertion; a fenced block always does. */
function isAssertion(code: string, inline: boolean): boolean {
  const t = code.trim();
  if (t.length === 0) return false;
  if (!inline) return true;
  return !/^[\w.$:/-]+$/.test(t);
}

/** The first assertion inside a list item (not inside nested rule items). */
function findAssertion(doc: ParsedDoc, item: ListItem): { code: string; range: Range } | null {
  let found: { code: string; range: Range } | null = null;
  const visit = (node: Nodes): void => {
    if (found) return;
    if (node.type === 'inlineCode' || node.type === 'code') {
      if (isAssertion(node.value, node.type === 'inlineCode'))
        found = { code: node.value, range: nodeRange(doc, node) };
      return;
    }
    if (node.type === 'listItem' && node !== item && RULE_LEAD.test(itemLeadText(node))) return;
    if ('children' in node) for (const c of node.children as Nodes[]) visit(c);
  };
  visit(item);
  return found;
}

export function analyze04(doc: ParsedDoc, filePath: string): { model: BusinessLogicModel; diagnostics: Diagnostic[] } {
  const report = new Reporter();
  const first = doc.headings[0];
  const title = first && first.depth === 1 && doc.headings.filter((h) => h.depth === 1).length === 1 ? first : null;
  const features: Feature[] = doc.headings
    .filter((h) => h !== title && !isEdgeCasesHeading(h))
    .map((h) => ({ name: h.text, range: h.range, selectionRange: h.selectionRange, rules: [] }));
  const featureOf = new Map<HeadingInfo, Feature>();
  doc.headings.filter((h) => h !== title && !isEdgeCasesHeading(h)).forEach((h, i) => featureOf.set(h, features[i]));

  const rules: Rule[] = [];
  const edgeCases: Located[] = [];
  const ids = new IdRegistry();
  const edgeHeading = doc.headings.find((h) => isEdgeCasesHeading(h)) ?? null;

  for (const { list, section } of listsOf(doc)) {
    const inEdgeCases = isEdgeCasesHeading(section);
    for (const item of list.children) {
      const lead = itemLeadText(item);
      if (inEdgeCases && lead.length > 0) edgeCases.push({ text: lead, range: firstLineRange(doc, item) });
      const m = RULE_LEAD.exec(lead);
      if (!m) continue;
      const written = m[1];
      const para = item.children[0];
      const s = startOffset(para);
      const at = doc.text
        .slice(s, endOffset(para))
        .search(new RegExp(written.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i'));
      const idRange = at >= 0 ? doc.lines.range(s + at, s + at + written.length) : firstLineRange(doc, item);
      const assertion = findAssertion(doc, item);
      const feature =
        section && section !== title ? (inEdgeCases ? section.text : (featureOf.get(section)?.name ?? null)) : null;
      const rule: Rule = {
        id: written,
        text: squash(lead.slice(written.length).replace(/^[\s:.,;—–-]+/, '')),
        assertion: assertion?.code ?? null,
        assertionRange: assertion?.range ?? null,
        feature,
        range: nodeRange(doc, item),
        idRange,
      };
      rules.push(rule);
      if (section && featureOf.has(section)) featureOf.get(section)?.rules.push(rule);

      if (!RULE_RE.test(written)) {
        report.error(
          idRange,
          PageCodes.invalidId,
          `"${written}" is not a rule id: write RULE-<nn> (RULE-, then two digits or more).`,
        );
      } else {
        const prior = ids.seen(written, idRange);
        if (prior)
          report.error(idRange, PageCodes.duplicateId, `${written} is already defined on line ${lineOf(prior)}.`);
      }
      if (feature === null) {
        report.error(
          idRange,
          PageCodes.ruleOutsideFeature,
          `${written} is not grouped under a feature heading: put it under a "##" heading naming its feature.`,
        );
      }
      if (!assertion) {
        report.error(
          idRange,
          PageCodes.missingAssertion,
          `${written} has no executable assertion: add it in a code span on its line or in a fenced block indented under it.`,
        );
      }
    }
  }

  const anchor = pageAnchor(doc);
  if (rules.length === 0)
    report.error(
      anchor,
      PageCodes.noRules,
      'The page states no rule: write bullets "- RULE-01: ..." with an assertion in a code span.',
    );
  if (!edgeHeading)
    report.error(
      anchor,
      PageCodes.missingSection,
      'The page has no "Edge cases" section (a heading over a bullet list).',
    );
  else if (edgeCases.length === 0)
    report.error(
      edgeHeading.range,
      PageCodes.emptySection,
      'The "Edge cases" section lists no edge case: add bullets under it.',
    );

  const model: BusinessLogicModel = {
    kind: '04-business-logic',
    filePath,
    text: doc.text,
    title: titleOf(doc),
    headings: doc.headings,
    tables: tablesOf(doc),
    features,
    rules,
    edgeCases,
    edgeCasesHeading: edgeHeading,
  };
  return { model, diagnostics: report.diagnostics };
}
