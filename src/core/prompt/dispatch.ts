// The completion-report block of a dispatch (launch) prompt: the protocol with the quota
// self-report clause appended unchanged (spec "Pre-dispatch check").
import { completionReportBlock, type ReportProtocol } from './clauses';
import { inline } from './text';

export function composeDispatchPrompt(task: string, report: ReportProtocol): string {
  return [inline(task) === '' ? '' : task.trim(), completionReportBlock(report)].filter(Boolean).join('\n\n');
}
