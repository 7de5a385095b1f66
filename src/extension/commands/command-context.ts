// What every command file is handed: the operator (all that acts on sessions), the views and
// stores it shows and reads, and the log. A command picks its target, confirms where a person
// must, calls the operator and shows the outcome.
import type * as vscode from 'vscode';
import type { SessionRow } from '../../core/monitor/row';
import type { FleetUnion } from '../../core/daemon/fleet-union';
import type { SessionMonitor } from '../../core/monitor/sessionMonitor';
import type { Actors } from '../../core/operations/actor';
import type { Operator } from '../../core/operations/operator';
import type { Configuration } from '../configuration';
import type { DaemonTokens } from '../daemonTokens';
import type { LanguageClientHost } from '../languageClientHost';
import type { PasswordStore } from '../passwordStore';
import type { PromptDocuments } from '../prompts/promptDocuments';
import type { WorkspaceAuthority } from '../prompts/workspaceAuthority';
import type { SessionsNode, SessionsView } from '../views/sessionsView';

export interface CommandContext {
  operator: Operator;
  /** Who acts on a row: this window's operator, or the attached daemon whose fleet the row is (the one seam). */
  actors: Actors;
  /** The backends this window samples (refresh, credentials). */
  monitor: SessionMonitor;
  /** Every row the views show: the monitor's and the attached daemons' (sessionOps.daemons). */
  fleet: FleetUnion;
  sessions: SessionsView;
  configuration: Configuration;
  passwords: PasswordStore;
  daemonTokens: DaemonTokens;
  prompts: PromptDocuments;
  authority: WorkspaceAuthority;
  languageClient: LanguageClientHost;
  log: vscode.LogOutputChannel;
}

/** What a session command is invoked with: a tree node, a row (tests, notifications), or nothing (palette). */
export type Target = SessionsNode | SessionRow | undefined;
