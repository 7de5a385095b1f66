// The file-length limit of lint (max-lines): lines of code, blank lines and comments not counted.
export const MAX_LINES = 400;

/**
 * The files over MAX_LINES when the limit came (issue 30), each with its ceiling: its size then,
 * rounded up to the next 25 lines, so that concurrent work landing on it still passes; none may
 * grow past it. Split a file when its job is next changed, and take its line out of this table.
 */
export const FILE_LENGTH_EXCEPTIONS = {
  'src/core/backend/client.ts': 875,
  'src/core/backend/http.ts': 450,
  'src/core/metrics/watch-metrics.ts': 425,
  'src/core/monitor/sessionMonitor.ts': 425,
  'src/core/watch/daemon.ts': 525,
  'src/language/routing/analyzer.ts': 525,
  'src/language/routing/fastParse.ts': 550,
  'bench/lsp.mjs': 750,
  'bench/views.mjs': 450,
  'test/backend/engines-opencode.test.ts': 525,
  'test/backend/faults.test.ts': 575,
  'test/backend/watch.test.ts': 450,
  'test/editor/suite/views.bench.ts': 805,
  'test/editor/suite/views.test.ts': 425,
  'test/lsp/pages.test.ts': 425,
  'test/lsp/routing.test.ts': 575,
  'test/support/spec-server.ts': 450,
  'test/unit/core/backend/client.test.ts': 550,
  'test/unit/core/cost/message-ledger.test.ts': 500,
  'test/unit/core/operations/operator-restart.test.ts': 425,
};
