/**
 * Kubernetes Events as Karpenter's recorder and client-go's event correlator make them: an identical event
 * (object, reason, message) within its dedupe window is dropped in this container; after it, the one Event object
 * for that key — its name is derived from the key, so every container finds the same one — gets `count` + 1 and
 * a new `lastTimestamp`. Nominations are rate-limited like Karpenter's (a token bucket of 10, 5 per second).
 */
import { fnv1a64 } from '../../core/model/hash';
import { epochMs, toRfc3339 } from '../../core/time';
import type { KubeEvent } from '../../core/ports';
import { httpCode, type KubeApis } from './apis';

const API_VERSIONS: Record<KubeEvent['object']['kind'], string> = {
  Pod: 'v1',
  Node: 'v1',
  NodeClaim: 'karpenter.sh/v1',
  NodePool: 'karpenter.sh/v1',
  EC2NodeClass: 'karpenter.k8s.aws/v1',
};
const DEFAULT_DEDUPE_SECONDS = 120;
/** Whole seconds, as the API server stores event timestamps (RFC 3339). */
const second = (ms: number) => toRfc3339(epochMs(ms));

export class EventRecorder {
  private readonly sent = new Map<string, number>();
  private tokens = 10;
  private refilledAt: number;

  constructor(
    private readonly core: KubeApis['core'],
    private readonly now: () => number,
  ) {
    this.refilledAt = now();
  }

  async record(e: KubeEvent): Promise<void> {
    const now = this.now();
    const o = e.object;
    const object = `${o.kind}/${o.namespace ?? ''}/${o.name}/${o.uid ?? ''}`;
    const key = `${object}|${e.type}|${e.reason}|${e.message}`;
    const dedupe = e.dedupeByObject ? `${object}|${e.reason}` : key;
    const last = this.sent.get(dedupe);
    if (last !== undefined && now - last < (e.dedupeSeconds ?? DEFAULT_DEDUPE_SECONDS) * 1000) return;
    if (e.reason === 'Nominated' && !this.take(now)) return;
    this.sent.set(dedupe, now);
    if (this.sent.size > 10_000) this.sent.delete(this.sent.keys().next().value as string);
    const namespace = o.namespace ?? 'default';
    const name = `${o.name}.${fnv1a64(key).slice(0, 16)}`;
    const body = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: API_VERSIONS[o.kind],
        kind: o.kind,
        name: o.name,
        ...(o.namespace ? { namespace: o.namespace } : {}),
        ...(o.uid && !o.uid.includes('/') ? { uid: o.uid } : {}),
      },
      type: e.type,
      reason: e.reason,
      message: e.message,
      count: 1,
      firstTimestamp: second(now),
      lastTimestamp: second(now),
      source: { component: 'karpenter' },
      reportingComponent: 'karpenter',
      reportingInstance: 'nodewright',
    };
    try {
      await this.core.createNamespacedEvent({ namespace, body });
      return;
    } catch (err) {
      if (httpCode(err) !== 409) throw err;
    }
    // The same event was recorded before (by this container or another): count it.
    const existing = await this.core.readNamespacedEvent({ name, namespace });
    await this.core.patchNamespacedEvent({ name, namespace, body: { count: Number(existing.count ?? 1) + 1, lastTimestamp: toRfc3339(epochMs(now)) } });
  }

  private take(now: number): boolean {
    this.tokens = Math.min(10, this.tokens + ((now - this.refilledAt) / 1000) * 5);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
