// The event streams of one backend runtime: one GET /global/event per backend where the backend
// has it (capabilities.globalEvents), else one GET /event per directory. Each event feeds the
// directory's counter (output: a live signal between two samples; announced messages: counted by
// the message ledger while the stream stays open, which the counter learns from the stream's
// states) and is handed to the monitor, which nudges sampling (isNudge) and updates todo lists.
// Events are a hint, never the truth.
import {
  ActivityCounter,
  readEventStream,
  readGlobalEventStream,
  type BackendEvent,
  type EventStreamState,
  type GlobalBackendEvent,
} from '../backend';
import type { BackendRuntime } from './runtime';

export interface EventStreamHandlers {
  /** An event of one of the backend's directories (after the directory's counter saw it). */
  onEvent: (directory: string, e: BackendEvent) => void;
  /** A stream ended with an error. */
  onError: (err: unknown) => void;
}

/** Starts the runtime's streams when `want` and none run; stops them when not `want`. */
export function syncEventStreams(rt: BackendRuntime, want: boolean, handlers: EventStreamHandlers): void {
  if (!want || !rt.client) {
    if (rt.events) {
      for (const counter of rt.activity.values()) counter.onStreamState('stopped');
      rt.events.abort();
      rt.events = null;
      rt.state.eventStream = 'stopped';
    }
    return;
  }
  if (rt.events) return;
  const controller = new AbortController();
  rt.events = controller;
  const client = rt.client;
  const directories = rt.state.config.directories;
  for (const directory of directories) rt.activity.set(directory, new ActivityCounter());
  const onDirectoryEvent = (directory: string, e: BackendEvent) => {
    rt.activity.get(directory)?.onEvent(e);
    handlers.onEvent(directory, e);
  };
  const onState = (s: EventStreamState) => {
    rt.state.eventStream = s;
  };
  const perDirectory = () => {
    for (const directory of directories) {
      void readEventStream(client.transport, {
        directory,
        signal: controller.signal,
        onEvent: (e) => onDirectoryEvent(directory, e),
        onState: (s) => {
          onState(s);
          rt.activity.get(directory)?.onStreamState(s);
        },
      }).catch(handlers.onError);
    }
  };
  if (!client.capabilities?.globalEvents) {
    perDirectory();
    return;
  }
  // One GET /global/event per backend; its events name their directory. A server without it
  // ('unsupported') falls back to one GET /event per directory.
  const byDirectory = new Map(directories.map((d) => [sameDirectoryKey(d), d]));
  void readGlobalEventStream(client.transport, {
    signal: controller.signal,
    onEvent: (g: GlobalBackendEvent) => {
      const directory = g.directory === null ? undefined : byDirectory.get(sameDirectoryKey(g.directory));
      if (directory !== undefined) onDirectoryEvent(directory, g.event);
    },
    onState: (s) => {
      onState(s);
      for (const directory of directories) rt.activity.get(directory)?.onStreamState(s);
      if (s === 'unsupported' && !controller.signal.aborted) perDirectory();
    },
  }).catch(handlers.onError);
}

/** Directories compared without trailing separators. */
function sameDirectoryKey(directory: string): string {
  return directory.length > 1 ? directory.replace(/[\\/]+$/, '') : directory;
}

const NUDGES = new Set([
  'session.status',
  'session.idle',
  'session.error',
  'message.updated',
  'todo.updated',
  'session.created',
  'session.deleted',
]);

/** Events that mean "sample this directory soon": state changes, and every permission.* / question.* event. */
export function isNudge(e: BackendEvent): boolean {
  return NUDGES.has(e.type) || e.type.startsWith('permission.') || e.type.startsWith('question.');
}
