// The demo's embedded backends. Until the backend issue lands there is none: the demo opens the
// extension against an empty configuration, which shows the welcome views.
export async function startDemoBackends() {
  return { settings: [], env: {}, describe: 'none yet (empty configuration: the views show their welcome content)', stop: async () => {} };
}
