#!/usr/bin/env node
// ESM entry for plain Node scripts (the editor harness, the demo): starts the test backends
// without a TypeScript toolchain of their own. It loads the .ts modules through tsx's API
// (a dev dependency), so callers need nothing but `import`.
//
//   import { startScriptedModel, startOpencode, startSpecServer } from './test/support/backends.mjs';
//   const model = await startScriptedModel();                     // {url, when(), setDefault(), stop()}
//   const oc = await startOpencode({ modelUrl: model.url });      // {baseUrl, stop()}
//   const spec = await startSpecServer();                          // {url, directory(), setProviders(), stop()}
//
// Standalone: `node test/support/backends.mjs spec|model|opencode [--port N] [--password P]`
// prints one JSON line ({"kind", "url", ...}) and runs until SIGINT/SIGTERM.
import { tsImport } from 'tsx/esm/api';

const load = (file) => tsImport(new URL(file, import.meta.url).href, import.meta.url);

export async function startScriptedModel(options) {
  return (await load('./scripted-model.ts')).startScriptedModel(options);
}

export async function startSpecServer(options) {
  return (await load('./spec-server.ts')).startSpecServer(options);
}

export async function startOpencode(options) {
  return (await load('./opencode.ts')).startOpencode(options);
}

/** The config startOpencode gives the server (provider `local` on the scripted model), e.g. for a directory's opencode.json. */
export async function opencodeConfig(modelUrl, apiKey = 'sk-local-test-key') {
  return (await load('./opencode.ts')).opencodeConfig(modelUrl, apiKey);
}

/** A scripted model plus an opencode server pointed at it; stop() ends both. */
export async function startOpencodeWithModel(options = {}) {
  const model = await startScriptedModel(options.model);
  try {
    const opencode = await startOpencode({ ...options, modelUrl: model.url });
    return {
      model,
      opencode,
      baseUrl: opencode.baseUrl,
      stop: async () => {
        await opencode.stop();
        await model.stop();
      },
    };
  } catch (err) {
    await model.stop();
    throw err;
  }
}

async function main(argv) {
  const kind = argv[0];
  const flag = (name) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const port = flag('--port') !== undefined ? Number(flag('--port')) : 0;
  const password = flag('--password');
  let stop;
  if (kind === 'spec') {
    const s = await startSpecServer({ port, password });
    stop = s.stop;
    console.log(JSON.stringify({ kind, url: s.url }));
  } else if (kind === 'model') {
    const m = await startScriptedModel({ port });
    stop = m.stop;
    console.log(JSON.stringify({ kind, url: m.url }));
  } else if (kind === 'opencode') {
    const b = await startOpencodeWithModel({ password });
    stop = b.stop;
    console.log(JSON.stringify({ kind, url: b.baseUrl, modelUrl: b.model.url }));
  } else {
    console.error('usage: node test/support/backends.mjs spec|model|opencode [--port N] [--password P]');
    process.exit(2);
  }
  const end = async () => {
    await stop();
    process.exit(0);
  };
  process.on('SIGINT', end);
  process.on('SIGTERM', end);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).catch((err) => {
    console.error(err.message);
    process.exit(1);
  });
}
