/**
 * What kube-scheduler's default topology spread reads, for `SCHEDULER_CONFIG`: the Services (listed with each
 * snapshot; a handful), and the selectors of the ReplicaSets and StatefulSets that own pods without constraints of
 * their own (read by name once per container: a controller's selector is immutable).
 */
import type { LabelSelector, Pod, TopologySpreadConstraint } from '../../core/model/kube';
import { obj, str } from '../../core/model/manifests/context';
import { labelSelector } from '../../core/model/manifests/scheduling-fields';
import { ownerKey, withDefaultSpread } from '../../core/scheduling/default-spread';
import { tolerate, type KubeApis } from './apis';
import { listAll } from './snapshot';

type Json = Record<string, unknown>;

export class DefaultSpread {
  private readonly owners = new Map<string, LabelSelector>();

  constructor(
    private readonly apis: KubeApis,
    private readonly defaults: readonly TopologySpreadConstraint[],
    private readonly pageSize: number,
  ) {}

  async apply(pods: Pod[]): Promise<Pod[]> {
    if (this.defaults.length === 0) return pods;
    const services = (await listAll((c, l) => this.apis.core.listServiceForAllNamespaces({ _continue: c, limit: l }), this.pageSize)).map((s: Json) => {
      const selector = obj(s.spec).selector as Record<string, string> | undefined;
      return { namespace: str(obj(s.metadata).namespace) ?? 'default', ...(selector ? { selector } : {}) };
    });
    for (const p of pods) {
      if (p.topologySpreadConstraints.length > 0 || !p.owner || (p.owner.kind !== 'ReplicaSet' && p.owner.kind !== 'StatefulSet')) continue;
      const key = ownerKey(p.namespace, p.owner.kind, p.owner.name);
      if (this.owners.has(key)) continue;
      const read = p.owner.kind === 'ReplicaSet' ? this.apis.apps.readNamespacedReplicaSet : this.apis.apps.readNamespacedStatefulSet;
      // A controller that is gone contributes nothing (kube-scheduler proceeds without it); it is not asked again.
      const raw = await tolerate(() => read({ namespace: p.namespace, name: p.owner!.name }), [404], undefined);
      this.owners.set(key, (raw ? labelSelector(obj(raw.spec).selector) : undefined) ?? {});
    }
    return withDefaultSpread(pods, this.defaults, { services, owners: this.owners });
  }
}
