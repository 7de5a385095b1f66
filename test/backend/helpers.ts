// Shared helpers of the backend layer: run `session-ops status` in-process and capture it.
import { runStatus } from '../../src/cli/status';
import type { StatusDocument, StatusSession } from '../../src/core/health/status-document';

export interface StatusRun {
  code: number;
  stdout: string;
  stderr: string;
  doc: StatusDocument | null;
  session(id: string): StatusSession;
}

export async function status(args: string[], env: Record<string, string | undefined> = {}): Promise<StatusRun> {
  let stdout = '';
  let stderr = '';
  const code = await runStatus(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env });
  let doc: StatusDocument | null = null;
  if (args.includes('--json') && stdout.trim() !== '') doc = JSON.parse(stdout) as StatusDocument;
  return {
    code,
    stdout,
    stderr,
    doc,
    session(id: string) {
      const s = doc?.sessions.find((x) => x.id === id);
      if (!s) throw new Error(`session ${id} not in the status document:\n${stdout}\n${stderr}`);
      return s;
    },
  };
}

export function statusArgs(baseUrl: string, directory: string, ...extra: string[]): string[] {
  return [
    '--base-url',
    baseUrl,
    '--directory',
    directory,
    '--spacing',
    '1',
    '--allow-short-spacing',
    '--json',
    ...extra,
  ];
}

/** The shared polling helper (test/support/wait-for.ts), re-exported for this layer's files. */
export { waitFor } from '../support/wait-for';

/** The exact keys the issue requires of the JSON document (extra keys are allowed). */
export function assertDocumentShape(doc: StatusDocument): void {
  const fail = (m: string) => {
    throw new Error(`status document: ${m}`);
  };
  if (!Array.isArray(doc.sessions) || !Array.isArray(doc.providers) || !('allFreeAt' in doc))
    fail('sessions, providers and allFreeAt are required');
  if (doc.allFreeAt !== null && !Number.isInteger(doc.allFreeAt)) fail('allFreeAt must be an integer or null');
  for (const s of doc.sessions) {
    if (typeof s.id !== 'string') fail('session id');
    // 'unknown': the newest message could not be read (with the reason in `unreadable`).
    if (!['healthy', 'idle', 'hung', 'waiting', 'unknown'].includes(s.verdict)) fail(`verdict ${s.verdict}`);
    if (s.verdict === 'unknown' && !s.unreadable) fail('verdict unknown without the reason');
    if (
      ![
        'leave-alone',
        'answer',
        'wake',
        'harvest',
        'read-report',
        'abort-and-wake',
        'recover',
        'wait-for-reset',
        'escalate',
      ].includes(s.action)
    )
      fail(`action ${s.action}`);
    if (!('quotaWall' in s) || !('report' in s)) fail('quotaWall and report are required (null allowed)');
    if (s.quotaWall) {
      if (
        s.quotaWall.category !== null &&
        !['usage-limit', 'free-tier', 'rate-limit', 'balance'].includes(s.quotaWall.category)
      )
        fail('quotaWall.category');
      if (!['failed-turn', 'retry', 'provider-marked'].includes(s.quotaWall.observed)) fail('quotaWall.observed');
      if (!('provider' in s.quotaWall) || !('reason' in s.quotaWall)) fail('quotaWall.provider/reason');
    }
    if (s.report) {
      for (const k of ['ticket', 'label', 'status', 'pr', 'summary', 'reason'])
        if (!(k in s.report)) fail(`report.${k}`);
    }
  }
  for (const p of doc.providers) {
    if (typeof p.id !== 'string' || typeof p.connected !== 'boolean' || !('quota' in p))
      fail('provider id/connected/quota');
    if (
      p.quota &&
      (!Number.isInteger(p.quota.markedAt) || !(p.quota.resetAt === null || Number.isInteger(p.quota.resetAt)))
    )
      fail('provider quota');
  }
}
