export {
  findReport,
  isMalformed,
  parsePairs,
  parseReportLine,
  readReport,
  readReportLine,
  readReportOf,
  REPORT_KEYS,
  reportOf,
  type ReportReading,
} from './parse';
export { formatReport, oneLine, quoteValue, quotaBlockedReport, reportProblem } from './format';
