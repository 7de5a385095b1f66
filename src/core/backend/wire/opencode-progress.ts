// Stock opencode has no progress object. A progress signal is derived from the newest message's
// parts instead: stepCount counts parts and finished parts (it grows whenever a part is added or
// completes), lastStepAt is the newest time stamp anywhere in the message. Text streamed into a
// part is not persisted until the part ends, so a long stream reads as frozen: that is why the
// verdict needs two samples 30-60 s apart, and why the event stream is only a hint.
import type { Progress } from '../../model';
import { isObj, looseNum, type Obj } from './shape';
import { rawParts } from './message';

export function deriveProgress(message: Obj | null): Progress | null {
  if (!message) return null;
  const info = isObj(message.info) ? message.info : {};
  const time = isObj(info.time) ? info.time : {};
  let latest = Math.max(looseNum(time.created) ?? 0, looseNum(time.completed) ?? 0);
  const parts = rawParts(message);
  let finished = 0;
  const see = (t: unknown) => {
    const v = looseNum(t);
    if (v !== null && v > latest) latest = v;
  };
  for (const part of parts) {
    const pt = isObj(part.time) ? part.time : null;
    if (pt) {
      see(pt.start);
      see(pt.end);
      if (pt.end !== undefined) finished++;
    }
    const state = isObj(part.state) ? (part.state as Obj) : null;
    if (state) {
      const st = isObj(state.time) ? state.time : null;
      if (st) {
        see(st.start);
        see(st.end);
      }
      if (state.status === 'completed' || state.status === 'error') finished++;
    }
    if (part.type === 'step-finish') finished++;
  }
  return { stepCount: parts.length + finished, lastStepAt: latest };
}
