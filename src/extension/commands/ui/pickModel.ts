// A quick pick of a model; marked, disconnected or walled providers are listed but refused.
import * as vscode from 'vscode';
import type { ModelRef, ProviderListing } from '../../../core/model';

/** A quick pick of models; marked, disconnected or walled providers are listed but refused. */
export async function pickModel(
  listing: ProviderListing,
  wallProvider: string | null,
  title: string,
): Promise<ModelRef | undefined> {
  const items: Array<vscode.QuickPickItem & { model?: ModelRef; why?: string }> = [];
  for (const p of listing.providers) {
    const why = !listing.connected.includes(p.id)
      ? 'not connected'
      : p.quota
        ? 'quota-marked'
        : p.id === wallProvider
          ? "this session's quota wall"
          : null;
    if (!listing.connected.includes(p.id) && !p.quota) continue;
    items.push({ label: p.name ?? p.id, kind: vscode.QuickPickItemKind.Separator });
    for (const m of p.models.slice(0, 50))
      items.push({
        label: `${p.id}/${m}`,
        description: why ? `not allowed: ${why}` : p.defaultModel === m ? 'default' : undefined,
        model: { providerID: p.id, modelID: m },
        why: why ?? undefined,
      });
  }
  const pick = await vscode.window.showQuickPick(items, { title, matchOnDescription: true });
  if (!pick?.model) return undefined;
  if (pick.why) throw new Error(`${pick.label} is ${pick.why}: a prompt is never sent there`);
  return pick.model;
}
