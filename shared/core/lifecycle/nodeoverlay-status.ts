/**
 * NodeOverlay status as Karpenter's nodeoverlay controller writes it: ValidationSucceeded (False with reason
 * Conflict when a same-weight overlay already set the value, RuntimeValidation when the object cannot be read as a
 * valid overlay) and Ready, True when it is. Written only when a condition changed (compared with the conditions read).
 */
import type { StatusCondition } from '../model/karpenter';
import type { OverlayResolution } from '../instance-types/overlays';
import type { ClusterSnapshot } from '../ports';
import type { LifecycleDeps } from './deps';
import { sameConditions, withReady } from './nodepool-status';

/** The conditions each overlay should carry (invalid ones from `snapshot.invalid`). */
function nodeOverlayConditions(
  snapshot: Pick<ClusterSnapshot, 'nodeOverlays' | 'invalid'>,
  res: OverlayResolution | undefined,
): Map<string, StatusCondition[]> {
  const out = new Map<string, StatusCondition[]>();
  for (const o of snapshot.nodeOverlays ?? []) {
    const rejected = res?.rejected.get(o.name);
    const validation: StatusCondition = rejected
      ? { type: 'ValidationSucceeded', status: 'False', reason: rejected.reason, message: rejected.message }
      : { type: 'ValidationSucceeded', status: 'True', reason: 'ValidationSucceeded', message: '' };
    out.set(o.name, withReady([validation]));
  }
  for (const bad of snapshot.invalid ?? []) {
    if (bad.kind !== 'NodeOverlay') continue;
    out.set(bad.name, withReady([{ type: 'ValidationSucceeded', status: 'False', reason: 'RuntimeValidation', message: bad.reason }]));
  }
  return out;
}

/** Per cluster client (container): the conditions last written per overlay. */
const lastWritten = new WeakMap<object, Map<string, StatusCondition[]>>();

/** Writes the conditions that changed; a failed write is logged and tried again at the next pass. Returns the overlays written. */
export async function reconcileNodeOverlayStatuses(
  deps: Pick<LifecycleDeps, 'cluster' | 'log'>,
  snapshot: Pick<ClusterSnapshot, 'nodeOverlays' | 'invalid'>,
  res: OverlayResolution | undefined,
): Promise<string[]> {
  const written: string[] = [];
  let last = lastWritten.get(deps.cluster);
  if (!last) lastWritten.set(deps.cluster, (last = new Map()));
  for (const [name, conditions] of nodeOverlayConditions(snapshot, res)) {
    const read = snapshot.nodeOverlays?.find((o) => o.name === name)?.observedConditions;
    // An invalid overlay is not read with its status: what this container last wrote stands in for it.
    if (sameConditions(conditions, read ?? last.get(name))) continue;
    try {
      const changed = await deps.cluster.patchNodeOverlayStatus(name, conditions);
      last.set(name, conditions);
      if (changed) written.push(name);
    } catch (e) {
      deps.log.warn('could not write nodeoverlay status', { nodeoverlay: name, error: e instanceof Error ? e.message : String(e) });
    }
  }
  return written;
}
