// The one polling helper of every test layer (unit, lsp, backend under mocha/tsx; the editor suite
// bundled into the extension host): calls `probe` every `everyMs` until it returns a value other
// than undefined, null or false, and resolves with that value. A probe that throws is retried; past
// the deadline the error names what was awaited and the probe's last error.
export type Probe<T> = () => Promise<T | undefined | null | false> | T | undefined | null | false;

export async function waitFor<T>(what: string, probe: Probe<T>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== null && v !== false) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
        { cause: lastError },
      );
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
