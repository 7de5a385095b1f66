// Placeholder until its issue lands; replaced by the owning work.
export async function runStatus(_argv: string[]): Promise<number> {
  process.stderr.write('session-ops status: not built yet\n');
  return 2;
}
