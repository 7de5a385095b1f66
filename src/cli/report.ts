// `session-ops report parse` (one line on stdin -> JSON; exit 1 when it is not a report) and
// `session-ops report format --ticket T --status done|blocked|handoff --summary S [--label L]
// [--pr P] [--reason R]` (one line on stdout).
import type { ReportStatus } from '../core/model';
import { formatReport, reportProblem } from '../core/report/format';
import { isMalformed, readReport } from '../core/report/parse';
import { parseArgv, UsageError, wantsHelp } from './args';
import { defaultActionIo, EXIT, withUsage, type ActionIo } from './action-io';

const USAGE = `Usage: session-ops report parse < LINE
       session-ops report format --ticket T --status done|blocked|handoff --summary S [--label L] [--pr P] [--reason R]

parse:  reads a completion report (the last report line of stdin, outside code) and prints it as
        JSON {"ticket","label","status","pr","summary","reason"}; exit 1 when stdin holds no report,
        or a line meant as one that does not parse (printed as {"malformed":true,"raw","problem",...}).
format: prints the one-line report; --summary is required; a blocked report caused by quota adds
        --reason quota-exhausted (refused with any other status).

Example:
  session-ops report format --ticket PROJ-12 --status done --pr '#34' --summary "CRLF parsing fixed"
  echo 'ticket=PROJ-12 status=done summary="ok"' | session-ops report parse`;

export async function runReport(argv: string[], ioOverrides: Partial<ActionIo> = {}): Promise<number> {
  const io = { ...defaultActionIo(), ...ioOverrides };
  return withUsage(io, 'report', USAGE, async () => {
    const [sub, ...rest] = argv;
    if (sub === '--help' || sub === '-h' || sub === 'help') {
      io.stdout(`${USAGE}\n`);
      return EXIT.done;
    }
    if (sub === 'parse') {
      const a = parseArgv(rest, { flags: [], options: [] });
      if (wantsHelp(a)) {
        io.stdout(`${USAGE}\n`);
        return EXIT.done;
      }
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
    }
    if (sub === 'format') {
      const a = parseArgv(rest, {
        flags: [],
        options: ['--ticket', '--status', '--label', '--pr', '--summary', '--reason'],
      });
      if (wantsHelp(a)) {
        io.stdout(`${USAGE}\n`);
        return EXIT.done;
      }
      const ticket = a.values.get('--ticket');
      if (!ticket || ticket.trim() === '') throw new UsageError('--ticket is required');
      const status = a.values.get('--status');
      if (status !== 'done' && status !== 'blocked' && status !== 'handoff')
        throw new UsageError('--status must be done, blocked or handoff');
      const opt = (k: string) => a.values.get(k) ?? null;
      const report = {
        ticket,
        status: status as ReportStatus,
        label: opt('--label'),
        pr: opt('--pr'),
        summary: opt('--summary'),
        reason: opt('--reason'),
      };
      const problem = reportProblem(report);
      if (problem) throw new UsageError(problem);
      io.stdout(`${formatReport(report)}\n`);
      return EXIT.done;
    }
    throw new UsageError(sub ? `unknown report command "${sub}" (parse or format)` : 'report needs parse or format');
  });
}
