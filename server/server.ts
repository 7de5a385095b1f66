// Language server entry for the extension: its own process, spoken to over IPC.
import { createConnection, ProposedFeatures } from 'vscode-languageserver/node';
import { startServer } from './main';

startServer(createConnection(ProposedFeatures.all));
