// Placeholder until its issue lands; replaced by the owning work.
export async function runValidate(_argv: string[]): Promise<number> {
  process.stderr.write('session-ops validate: not built yet\n');
  return 2;
}
