// The timing constants of every host, in one place (issue 30 item 2): the times a person or an
// operator could ask about ("how often does the view tick?", "how long may a stop take?") but that
// no setting changes. The settings a person sets (sample spacing, reach, walls, ceilings) are in
// operator-settings.ts; the backend's request limits in src/core/backend/limits.ts. All in ms.
export const TIMING = {
  // The editor (src/extension)
  /** The port analysis view re-asks the language server this long after the last change. */
  portAnalysisDebounceMs: 300,
  /** Countdowns (resets, mark ages) in the Providers view tick this often while it is visible. */
  providersCountdownMs: 30_000,
  /** How long the look computed for a changed session row serves its tree item ("5 s ago"). */
  freshLookMs: 2_000,
  /** Changed session rows are refreshed in slices this far apart. */
  sessionsRefreshGapMs: 250,
  /** A directory or backend row is refreshed for its "$x spent" at most this often. */
  spentRefreshGapMs: 30_000,
  /** How long a new TreeView may take to report its visibility before its own `visible` is trusted. */
  treeVisibilityGraceMs: 5_000,
  /** How long after its budget is passed a tree view is recycled. */
  treeRecycleDelayMs: 1_000,
  /** The attention badge and status bar follow the monitor's changes this long after the first of a burst. */
  attentionDelayMs: 250,
  /** How long transitions are collected before they are notified together. */
  notificationGroupMs: 400,
  /** A custom language-server request with no answer within this is cancelled and fails. */
  languageRequestDeadlineMs: 30_000,
  // The daemon (src/core/watch, src/cli/watch.ts)
  /** Per-request deadline of the daemon's backend requests. */
  watchRequestTimeoutMs: 15_000,
  /** How often the daemon saves the quota marks while running (and once at stop). */
  watchMarkSaveMs: 60_000,
  /** How often the daemon checks that its sampling loop still makes progress (/healthz). */
  watchHealthCheckMs: 1_000,
  /** The longest a stop of the daemon may take: in-flight requests are abandoned after this. */
  watchStopDeadlineMs: 4_500,
} as const;
