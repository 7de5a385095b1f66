// Placeholder until its issue lands; replaced by the owning work.
export async function runLsp(_argv: string[]): Promise<number> {
  process.stderr.write('session-ops lsp: not built yet\n');
  return 2;
}
