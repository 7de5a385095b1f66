// The parsed model of a source-analysis page, with 0-based ranges, for hover, document symbols,
// the Port analysis view and the cross-page checks.

import type { Range } from '../../core/diagnostics';
import type { PageKind } from './kinds';
import type { HeadingInfo, TableInfo } from './markdown';

export type { HeadingInfo, TableInfo, CellInfo, RowInfo } from './markdown';

/** A piece of text with where it is. */
export interface Located {
  text: string;
  range: Range;
}

interface PageModelBase {
  kind: PageKind;
  filePath: string;
  /** The page's text (positions refer to it). */
  text: string;
  /** The first `#` heading, or null. */
  title: HeadingInfo | null;
  headings: HeadingInfo[];
  /** Every top-level table of the page, recognized or not. */
  tables: TableInfo[];
}

// ---- 01-source-overview -------------------------------------------------------------------------

export type OverviewFieldKey =
  'projectName' | 'language' | 'framework' | 'featureScope' | 'fileCount' | 'lineCount' | 'modules';

export interface OverviewField {
  key: OverviewFieldKey;
  /** The label as written. */
  label: string;
  value: string;
  /** The table row or list item. */
  range: Range;
  valueRange: Range;
}

export interface OverviewModel extends PageModelBase {
  kind: '01-source-overview';
  fields: OverviewField[];
  projectName: string | null;
  language: string | null;
  framework: string | null;
  featureScope: string | null;
  /** Null when absent or not a non-negative integer. */
  fileCount: number | null;
  lineCount: number | null;
  modules: Located[];
}

// ---- 02-public-api ------------------------------------------------------------------------------

export interface ErrorCodeRef {
  code: string;
  range: Range;
}

export interface Endpoint {
  endpoint: string;
  input: string;
  output: string;
  errors: ErrorCodeRef[];
  errorsText: string;
  errorsRange: Range;
  notes: string;
  /** The table row. */
  range: Range;
  endpointRange: Range;
}

export interface PublicApiModel extends PageModelBase {
  kind: '02-public-api';
  endpoints: Endpoint[];
}

// ---- 03-data-model ------------------------------------------------------------------------------

export interface EntityField {
  name: string;
  type: string;
  constraints: string;
  range: Range;
  nameRange: Range;
}

export interface Entity {
  name: string;
  /** The entity's heading. */
  range: Range;
  selectionRange: Range;
  fields: EntityField[];
  tableRange: Range | null;
}

export interface Relationship {
  text: string;
  /** The cardinality as written ("1:N", "one-to-many"), or null when the item states none. */
  cardinality: string | null;
  /** Best-effort ends of the relationship, when the item reads "A <cardinality> B" or "A — B: <cardinality>". */
  from: string | null;
  to: string | null;
  range: Range;
}

export interface DataModelModel extends PageModelBase {
  kind: '03-data-model';
  entities: Entity[];
  relationships: Relationship[];
  relationshipsHeading: HeadingInfo | null;
}

// ---- 04-business-logic --------------------------------------------------------------------------

export interface Rule {
  id: string;
  /** The rule's prose (the item's first paragraph without the id). */
  text: string;
  /** The first assertion (code span or fenced block), or null. */
  assertion: string | null;
  assertionRange: Range | null;
  /** The feature heading it is grouped under, or null. */
  feature: string | null;
  /** The list item. */
  range: Range;
  idRange: Range;
}

export interface Feature {
  name: string;
  range: Range;
  selectionRange: Range;
  rules: Rule[];
}

export interface BusinessLogicModel extends PageModelBase {
  kind: '04-business-logic';
  features: Feature[];
  rules: Rule[];
  edgeCases: Located[];
  edgeCasesHeading: HeadingInfo | null;
}

// ---- 05-error-handling --------------------------------------------------------------------------

export interface ErrorCodeRow {
  code: string;
  /** Null when the cell is not a status in 100-599. */
  status: number | null;
  statusText: string;
  message: string;
  condition: string;
  range: Range;
  codeRange: Range;
}

export interface ErrorHandlingModel extends PageModelBase {
  kind: '05-error-handling';
  errors: ErrorCodeRow[];
}

// ---- 10-fidelity-baseline -----------------------------------------------------------------------

export type BehaviorType = 'happy path' | 'error path' | 'edge case';

export interface FidRow {
  fid: string;
  behavior: string;
  /** The type as written. */
  type: string;
  /** The normalized type, or null when it is none of the three. */
  behaviorType: BehaviorType | null;
  sourceTest: string;
  sourceTestRange: Range;
  /** The chunk cell as written. */
  chunk: string;
  /** The one chunk name, or null when the cell is empty or names several. */
  chunkName: string | null;
  /** The table row. */
  range: Range;
  fidRange: Range;
  chunkRange: Range;
}

export interface ChunkDeclaration {
  name: string;
  range: Range;
}

export interface FidelityModel extends PageModelBase {
  kind: '10-fidelity-baseline';
  rows: FidRow[];
  /** Chunks listed in an optional `Chunks` section (list or table), if the page has one. */
  declaredChunks: ChunkDeclaration[] | null;
}

export type PageModel =
  OverviewModel | PublicApiModel | DataModelModel | BusinessLogicModel | ErrorHandlingModel | FidelityModel;
