/** Paged LISTs and their mapping into the core's model (the snapshot itself: ./warm-snapshot.ts). */

type Json = Record<string, unknown>;
type Page = { items: Json[]; metadata?: unknown };

/** The `continue` token of a list page. */
function continueOf(list: { metadata?: unknown }): string | undefined {
  return ((list.metadata ?? {}) as { continue?: string }).continue || undefined;
}

/** Follows `continue` tokens until the list is complete. */
export async function listAll(fetchPage: (cont: string | undefined, limit: number) => Promise<Page>, pageSize: number): Promise<Json[]> {
  const out: Json[] = [];
  let cont: string | undefined;
  do {
    const page = await fetchPage(cont, pageSize);
    out.push(...(page.items ?? []));
    cont = continueOf(page);
  } while (cont);
  return out;
}

/** Pods that hold (or will hold) resources: terminal pods are left out, as Karpenter's cluster state does. */
export const ACTIVE_PODS = 'status.phase!=Succeeded,status.phase!=Failed';
