// Language server entry for the extension: its own process, spoken to over IPC.
import { setFlagsFromString } from 'node:v8';
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './main';

// A larger young generation: opening a 10,000-route table allocates ~100 MB of short-lived parse
// objects, and with V8's default 16 MB semi-spaces most of them were copied into the old space.
setFlagsFromString('--max-semi-space-size=64');

startServer(createConnection(ProposedFeatures.all));
