export { findReport, parsePairs, parseReportLine, REPORT_KEYS } from './parse';
export { formatReport, oneLine, quoteValue, quotaBlockedReport } from './format';
