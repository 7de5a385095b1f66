// What a session cost, from its whole transcript on a real opencode server: the truth the cost
// tests compare Session Ops' figures against (read once by the test, never by the product).

/** Per million tokens, as opencode's provider config takes it. */
export const PRICE = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };

export interface TranscriptCost {
  usd: number;
  tokens: { input: number; output: number; reasoning: number; cacheRead: number; cacheWrite: number };
  messages: number;
}

/** GET a path of the server for one directory, as JSON (status 200 asserted by the caller's message). */
export async function getJson(baseUrl: string, directory: string, p: string): Promise<unknown> {
  const res = await fetch(`${baseUrl}${p}${p.includes('?') ? '&' : '?'}directory=${encodeURIComponent(directory)}`);
  if (res.status !== 200) throw new Error(`GET ${p}: HTTP ${res.status}`);
  return res.json();
}

/** The sum over the session's assistant messages, from the whole transcript. */
export async function transcriptCost(baseUrl: string, directory: string, id: string): Promise<TranscriptCost> {
  const messages = (await getJson(baseUrl, directory, `session/${id}/message`)) as Array<{
    info: Record<string, unknown>;
  }>;
  const t: TranscriptCost = {
    usd: 0,
    tokens: { input: 0, output: 0, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
    messages: 0,
  };
  for (const { info } of messages) {
    if (info.role !== 'assistant') continue;
    const tokens = info.tokens as { input: number; output: number; reasoning: number; cache: Record<string, number> };
    t.messages++;
    t.usd += info.cost as number;
    t.tokens.input += tokens.input;
    t.tokens.output += tokens.output;
    t.tokens.reasoning += tokens.reasoning;
    t.tokens.cacheRead += tokens.cache.read;
    t.tokens.cacheWrite += tokens.cache.write;
  }
  return t;
}

/** Two dollar figures equal to rounding. */
export function assertCloseUsd(actual: number | undefined, expected: number, what: string): void {
  if (actual === undefined || Math.abs(actual - expected) >= 1e-9) throw new Error(`${what}: ${actual} != ${expected}`);
}
