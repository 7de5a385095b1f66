// The exit codes of every `session-ops` command, named once. A command's usage text says which
// of them it uses and what each means for it.
export const EXIT = {
  /** Done: the work succeeded, no error was found, the help was printed, or a daemon was stopped by a signal. */
  done: 0,
  /** The work failed: the backend could not be read, an action was not confirmed in time, validation found an error, `watch` could not listen. */
  failed: 1,
  /** A usage error, or an input the command could not read (a file, a configuration). */
  usage: 2,
  /** Refused by a safety rule; nothing sent. */
  refused: 3,
  /** Wait for a provider reset; nothing sent. */
  waitForReset: 4,
  /** Escalated to a human; nothing sent. */
  escalated: 5,
  /** `status --budget-usd`: a session's cost reached the budget. */
  overBudget: 6,
  /** `watch`: refused to listen on a non-loopback address without a tokens file (auth.tokensFile). */
  unprotectedListen: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit-code paragraph of the action commands' usage. */
export const EXIT_HELP = `Exit codes: 0 done, 1 backend error or not confirmed in time, 2 usage,
3 refused by a safety rule (nothing sent), 4 wait-for-reset (nothing sent), 5 escalated (nothing sent).`;
