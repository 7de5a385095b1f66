// The stateful spec-dialect server with a client and an action context over one directory, as the
// tests of the actions and the operator set it up: prompts answered after a delay, the providers
// listed and connected as told (every request recorded by the server).
import type { ActionContext } from '../../src/core/actions/executor-context';
import { BackendClient } from '../../src/core/backend/client';
import { startSpecServer, type SpecProvider, type SpecServer } from './spec-server';

/** anthropic (sonnet) and openai (gpt-5), both connected. */
export const TWO_CONNECTED = {
  listed: [
    { id: 'anthropic', models: ['sonnet'] },
    { id: 'openai', models: ['gpt-5'] },
  ],
  connected: ['anthropic', 'openai'],
};
/** anthropic and openai connected, groq (llama) listed but not connected. */
export const TWO_CONNECTED_GROQ_NOT = {
  listed: [...TWO_CONNECTED.listed, { id: 'groq', models: ['llama'] }],
  connected: TWO_CONNECTED.connected,
};

export interface SpecActions {
  server: SpecServer;
  client: BackendClient;
  ctx: ActionContext;
  /** Closes the client, then stops the server. */
  stop(): Promise<void>;
}

export async function startSpecActions(options: {
  /** The prompt answer's delay, and its text (default 'Resumed.'). */
  answerMs: number;
  answerText?: string;
  /** The providers set on the server (default TWO_CONNECTED); null: none set. */
  providers?: { listed: SpecProvider[]; connected: string[] } | null;
  /** The action context's directory (default /work/project). */
  directory?: string;
}): Promise<SpecActions> {
  const server = await startSpecServer();
  server.answerPrompts = { delayMs: options.answerMs, text: options.answerText ?? 'Resumed.' };
  const client = new BackendClient({ baseUrl: server.url });
  const providers = options.providers === undefined ? TWO_CONNECTED : options.providers;
  if (providers) server.setProviders(providers.listed, providers.connected);
  return {
    server,
    client,
    ctx: { backend: client, directory: options.directory ?? '/work/project' },
    stop: async () => {
      await client.close();
      await server.stop();
    },
  };
}
