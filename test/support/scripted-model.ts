// A scripted, OpenAI-compatible model on loopback (POST /v1/chat/completions, SSE chunks) for
// driving the real opencode server through every state of the spec: streaming replies, a stream
// that stalls mid-way (a hung generation), 429 with or without retry-after, 402
// insufficient_quota, busy tool-call loops, and replies that end with a completion report.
//
// Behaviour is chosen per request: the first rule whose marker occurs in the latest user message
// wins, else the default. Auxiliary requests without tools (the title the server generates for
// every new session) are always answered at once.
// Only node: builtins, so editor tests and demo scripts can load it too.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  /** Stream `text` in `chunks` pieces, `delayMs` apart. */
  | { kind: 'reply'; text: string; chunks?: number; delayMs?: number }
  /** Start streaming, then send nothing more until released or stopped (a dead stream). */
  | { kind: 'stall'; text?: string }
  /** HTTP 429; `retryAfter` seconds as a retry-after header when given. */
  | { kind: 'rate-limit'; retryAfter?: number | null; message?: string }
  /** HTTP 402 insufficient_quota. */
  | { kind: 'balance'; message?: string }
  /** Call the bash tool with `command`, `rounds` times (default: forever), then reply `then`. */
  | { kind: 'tool-loop'; command?: string; rounds?: number; then?: string }
  /** HTTP 500. */
  | { kind: 'server-error' }
  /**
   * Call the tools in `calls` one after another (one per model round: `tool` by name with `args`
   * as its JSON arguments), then reply `then`. E.g. bash under `"permission": {"bash": "ask"}`,
   * the question tool, todowrite, task.
   */
  | { kind: 'tool-calls'; calls: Array<{ tool: string; args: Record<string, unknown> }>; then?: string };

export interface ModelRequest {
  at: number;
  auxiliary: boolean;
  marker: string | null;
  behaviour: Behaviour['kind'];
  lastUserText: string;
  /** Names of the tools the request offered. */
  tools: string[];
  /** The request's `reasoning_effort` (a model variant's option, as opencode sends it), or null. */
  reasoningEffort: string | null;
}

export interface ScriptedModel {
  /** Base URL for an OpenAI-compatible provider: http://127.0.0.1:PORT/v1 */
  url: string;
  port: number;
  requests: ModelRequest[];
  /** Requests whose latest user message contains `marker` get `behaviour`. */
  when(marker: string, behaviour: Behaviour): void;
  setDefault(behaviour: Behaviour): void;
  /** Ends stalled streams (they finish with `text`, default "released"). */
  releaseStalls(text?: string): void;
  stop(): Promise<void>;
}

export interface ScriptedModelOptions {
  port?: number;
  default?: Behaviour;
}

type ChatMessage = { role?: string; content?: unknown; tool_calls?: unknown };

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((c) =>
        c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string'
          ? (c as { text: string }).text
          : '',
      )
      .join('\n');
  return '';
}

export async function startScriptedModel(options: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const rules: Array<{ marker: string; behaviour: Behaviour }> = [];
  let fallback: Behaviour = options.default ?? { kind: 'reply', text: 'OK.' };
  const requests: ModelRequest[] = [];
  const stalled = new Set<http.ServerResponse>();
  let seq = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method === 'GET' && url.endsWith('/models')) {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ object: 'list', data: [{ id: 'm1', object: 'model' }] }));
        return;
      }
      if (req.method !== 'POST' || !url.endsWith('/chat/completions')) {
        res.writeHead(404).end();
        return;
      }
      let body: { messages?: ChatMessage[]; tools?: unknown[]; stream?: boolean; reasoning_effort?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400).end();
        return;
      }
      const messages = Array.isArray(body.messages) ? body.messages : [];
      const auxiliary = !Array.isArray(body.tools) || body.tools.length === 0;
      let lastUser = -1;
      for (let i = messages.length - 1; i >= 0; i--) {
        if (messages[i]?.role === 'user') {
          lastUser = i;
          break;
        }
      }
      const lastUserText = lastUser >= 0 ? contentText(messages[lastUser].content) : '';
      const rule = auxiliary ? undefined : rules.find((r) => lastUserText.includes(r.marker));
      const behaviour: Behaviour = auxiliary ? { kind: 'reply', text: 'Session title' } : (rule?.behaviour ?? fallback);
      const toolRounds = lastUser >= 0 ? messages.slice(lastUser + 1).filter((m) => m.role === 'tool').length : 0;
      const tools = (Array.isArray(body.tools) ? body.tools : []).map((t) =>
        t && typeof t === 'object' ? String((t as { function?: { name?: unknown } }).function?.name ?? '') : '',
      );
      requests.push({
        at: Date.now(),
        auxiliary,
        marker: rule?.marker ?? null,
        behaviour: behaviour.kind,
        lastUserText,
        tools,
        reasoningEffort: typeof body.reasoning_effort === 'string' ? body.reasoning_effort : null,
      });
      respond(res, behaviour, toolRounds, body.stream !== false);
    });
  });

  const id = () => `chatcmpl-${++seq}`;

  function respond(res: http.ServerResponse, b: Behaviour, toolRounds: number, stream: boolean): void {
    switch (b.kind) {
      case 'rate-limit': {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (b.retryAfter !== undefined && b.retryAfter !== null) headers['retry-after'] = String(b.retryAfter);
        res.writeHead(429, headers).end(
          JSON.stringify({
            error: {
              message: b.message ?? 'Rate limit reached for requests',
              type: 'rate_limit',
              code: 'rate_limit_exceeded',
            },
          }),
        );
        return;
      }
      case 'balance':
        res.writeHead(402, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: {
              message: b.message ?? 'You exceeded your current quota, please check your plan and billing details.',
              type: 'insufficient_quota',
              code: 'insufficient_quota',
            },
          }),
        );
        return;
      case 'server-error':
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: 'internal error', type: 'server_error' } }));
        return;
      default:
        break;
    }
    if (!stream) {
      const text = b.kind === 'reply' ? b.text : 'OK.';
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          id: id(),
          object: 'chat.completion',
          created: 0,
          model: 'm1',
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const cid = id();
    const send = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
      res.write(
        `data: ${JSON.stringify({ id: cid, object: 'chat.completion.chunk', created: 0, model: 'm1', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`,
      );
    const finish = (reason: string) => {
      send({}, reason, { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
      res.end('data: [DONE]\n\n');
    };

    if (b.kind === 'stall') {
      send({ role: 'assistant', content: b.text ?? 'Working on it' });
      stalled.add(res);
      res.on('close', () => stalled.delete(res));
      return;
    }
    if (b.kind === 'tool-loop') {
      const rounds = b.rounds ?? Number.POSITIVE_INFINITY;
      if (toolRounds >= rounds) {
        send({ role: 'assistant', content: b.then ?? 'Done with the loop.' });
        finish('stop');
        return;
      }
      send({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: `call_${cid}`, type: 'function', function: { name: 'bash', arguments: '' } }],
      });
      send({
        tool_calls: [
          {
            index: 0,
            function: {
              arguments: JSON.stringify({ command: b.command ?? 'sleep 0.2', description: 'scripted step' }),
            },
          },
        ],
      });
      finish('tool_calls');
      return;
    }
    if (b.kind === 'tool-calls') {
      const call = b.calls[toolRounds];
      if (!call) {
        send({ role: 'assistant', content: b.then ?? 'Done with the tools.' });
        finish('stop');
        return;
      }
      send({
        role: 'assistant',
        content: null,
        tool_calls: [{ index: 0, id: `call_${cid}`, type: 'function', function: { name: call.tool, arguments: '' } }],
      });
      send({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(call.args) } }] });
      finish('tool_calls');
      return;
    }
    // reply
    const pieces = Math.max(1, b.chunks ?? 1);
    const size = Math.ceil(b.text.length / pieces) || 1;
    const parts: string[] = [];
    for (let i = 0; i < b.text.length; i += size) parts.push(b.text.slice(i, i + size));
    if (parts.length === 0) parts.push('');
    let i = 0;
    const next = () => {
      if (res.destroyed) return;
      send(i === 0 ? { role: 'assistant', content: parts[0] } : { content: parts[i] });
      i++;
      if (i >= parts.length) finish('stop');
      else if (b.delayMs) setTimeout(next, b.delayMs);
      else next();
    };
    next();
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    when(marker, behaviour) {
      rules.unshift({ marker, behaviour });
    },
    setDefault(behaviour) {
      fallback = behaviour;
    },
    releaseStalls(text = 'released') {
      for (const res of stalled) {
        res.write(
          `data: ${JSON.stringify({ id: 'rel', object: 'chat.completion.chunk', created: 0, model: 'm1', choices: [{ index: 0, delta: { content: ` ${text}` }, finish_reason: 'stop' }] })}\n\n`,
        );
        res.end('data: [DONE]\n\n');
      }
      stalled.clear();
    },
    async stop() {
      for (const res of stalled) res.destroy();
      stalled.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
