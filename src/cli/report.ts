// `session-ops report parse` (one line on stdin -> JSON; exit 1 when it is not a report) and
// `session-ops report format --ticket T --status done|blocked|handoff --summary S [--label L]
// [--pr P] [--reason R]` (one line on stdout).
import type { CompletionReport, ReportStatus } from '../core/model';
import { formatReport, reportProblem } from '../core/report/format';
import { isMalformed, readReport } from '../core/report/parse';
import { UsageError } from './args';
import { defaultActionIo, type ActionIo } from './action-io';
import { defineCommand, runGroup, type CommandGroup } from './command';
import { EXIT } from './exit-codes';

const USAGE = `Usage: session-ops report parse < LINE
       session-ops report format --ticket T --status done|blocked|handoff --summary S [--label L] [--pr P] [--reason R]

parse:  reads a completion report (the last report line of stdin, outside code) and prints it as
        JSON {"ticket","label","status","pr","summary","reason"}; exit 1 when stdin holds no report,
        or a line meant as one that is malformed (printed as {"malformed":true,"raw","problem",...}):
        a key given twice, no ticket, a status other than done/blocked/handoff, no summary, or a
        reason on a status other than blocked. Such a line is never harvested nor woken over.
format: prints the one-line report; --summary is required; a blocked report caused by quota adds
        --reason quota-exhausted (a reason with any other status is refused, exit 2).

Example:
  session-ops report format --ticket PROJ-12 --status done --pr '#34' --summary "CRLF parsing fixed"
  echo 'ticket=PROJ-12 status=done summary="ok"' | session-ops report parse`;

const parseCommand = defineCommand<null, ActionIo>({
  name: 'report',
  usage: USAGE,
  args: { flags: [], options: [] },
  io: defaultActionIo,
  options: () => null,
  async run(_, io) {
    const report = readReport(await io.readStdin());
    if (isMalformed(report)) {
      io.stdout(`${JSON.stringify(report)}\n`);
      io.stderr(`session-ops report parse: malformed completion report: ${report.problem}\n`);
      return EXIT.failed;
    }
    if (!report) {
      io.stderr(
        'session-ops report parse: stdin holds no completion report (ticket=... status=done|blocked|handoff)\n',
      );
      return EXIT.failed;
    }
    io.stdout(`${JSON.stringify(report)}\n`);
    return EXIT.done;
  },
});

const formatCommand = defineCommand<CompletionReport, ActionIo>({
  name: 'report',
  usage: USAGE,
  args: { flags: [], options: ['--ticket', '--status', '--label', '--pr', '--summary', '--reason'] },
  io: defaultActionIo,
  options(a) {
    const ticket = a.values.get('--ticket');
    if (!ticket || ticket.trim() === '') throw new UsageError('--ticket is required');
    const status = a.values.get('--status');
    if (status !== 'done' && status !== 'blocked' && status !== 'handoff')
      throw new UsageError('--status must be done, blocked or handoff');
    const opt = (k: string) => a.values.get(k) ?? null;
    const reported: ReportStatus = status;
    const report = {
      ticket,
      status: reported,
      label: opt('--label'),
      pr: opt('--pr'),
      summary: opt('--summary'),
      reason: opt('--reason'),
    };
    const problem = reportProblem(report);
    if (problem) throw new UsageError(problem);
    return report;
  },
  async run(report, io) {
    io.stdout(`${formatReport(report)}\n`);
    return EXIT.done;
  },
});

export const reportCommand: CommandGroup<ActionIo> = {
  name: 'report',
  usage: USAGE,
  verbs: { parse: parseCommand, format: formatCommand },
  io: defaultActionIo,
};

export const runReport = (argv: string[], io: Partial<ActionIo> = {}) => runGroup(reportCommand, argv, io);
