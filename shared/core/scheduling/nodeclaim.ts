/** A NodeClaim being planned: its requirements and instance-type options only shrink as pods are added (reference §2.3). */
import { Label } from '../model/labels';
import type { HostPort } from '../model/kube';
import { formatResourceList, type ResourceList } from '../model/resources';
import type { PodState } from './pod-data';
import type { Requirements } from './requirements';
import { taintString, untoleratedTaint } from './selectors';
import { offeringMatches, type Template, type TypeOption, typeMatches, OfferingKeys, TypeLabelKeys } from './template';
import type { Topology } from './topology';

export interface AddPlan {
  requirements: Requirements;
  options: TypeOption[];
  requests: ResourceList;
  minValuesRelaxed: boolean;
}

export function podRequests(s: PodState): ResourceList {
  return { ...s.pod.requests, pods: 1 };
}

export function hostPortKeys(ports: readonly HostPort[]): string[] {
  return ports.map((p) => `${p.protocol}/${p.hostIP && p.hostIP !== '0.0.0.0' ? p.hostIP : '*'}/${p.port}`);
}

export function hostPortConflict(used: ReadonlySet<string>, ports: readonly HostPort[]): string | undefined {
  for (const p of ports) {
    const anyIp = `${p.protocol}/*/${p.port}`;
    const exact = `${p.protocol}/${p.hostIP && p.hostIP !== '0.0.0.0' ? p.hostIP : '*'}/${p.port}`;
    if (used.has(anyIp) || used.has(exact)) return `host port ${p.port}/${p.protocol} already in use`;
    if (exact === anyIp) for (const u of used) if (u.startsWith(`${p.protocol}/`) && u.endsWith(`/${p.port}`)) return `host port ${p.port}/${p.protocol} already in use`;
  }
  return undefined;
}

export class InProgressClaim {
  readonly pods: PodState[] = [];
  requests: ResourceList = {};
  readonly hostPorts = new Set<string>();
  maxFree: ResourceList = {};
  minValuesRelaxed = false;

  constructor(
    readonly template: Template,
    readonly hostname: string,
    readonly index: number,
    public requirements: Requirements,
    public options: TypeOption[],
    private readonly minValuesPolicy: 'Strict' | 'BestEffort',
  ) {
    this.updateMaxFree();
  }

  private updateMaxFree(): void {
    const free: ResourceList = {};
    for (const o of this.options) {
      for (const k in o.effective) {
        const f = o.effective[k] - (this.requests[k] ?? 0);
        if (free[k] === undefined || f > free[k]) free[k] = f;
      }
    }
    this.maxFree = free;
  }

  canAdd(s: PodState, topology: Topology): AddPlan | string {
    const req = podRequests(s);
    for (const k in req) {
      if (req[k] > 0 && req[k] > (this.maxFree[k] ?? 0)) return `no instance type has enough ${k} left`;
    }
    const taint = untoleratedTaint({ tolerations: s.tolerations }, this.template.taints);
    if (taint) return `did not tolerate taint ${taintString(taint)}`;
    if (s.pod.hostPorts.length > 0) {
      const c = hostPortConflict(this.hostPorts, s.pod.hostPorts);
      if (c) return c;
    }
    const bad = this.requirements.incompatibleKey(s.requirements);
    if (bad !== undefined) return incompatibleMessage(bad, this.requirements, s.requirements);
    let merged = this.requirements.intersect(s.requirements);
    if (topology.hasGroups) {
      const t = topology.addRequirements(s, merged);
      if (typeof t === 'string') return t;
      merged = t;
    }
    const changedTypeKeys: string[] = [];
    let offeringsChanged = false;
    for (const [k, r] of merged.byKey) {
      if (this.requirements.get(k) === r) continue;
      if (TypeLabelKeys.has(k)) changedTypeKeys.push(k);
      else if (OfferingKeys.has(k)) offeringsChanged = true;
    }
    const requests: ResourceList = { ...this.requests };
    for (const k in req) requests[k] = (requests[k] ?? 0) + req[k];
    const keys = Object.keys(requests);
    const options: TypeOption[] = [];
    for (const o of this.options) {
      let ok = true;
      for (const k of keys) if (requests[k] > 0 && requests[k] > (o.effective[k] ?? 0)) { ok = false; break; }
      if (!ok) continue;
      if (changedTypeKeys.length > 0 && !typeMatches(o.it, merged, changedTypeKeys)) continue;
      if (offeringsChanged && !o.offerings.some((x) => offeringMatches(x, merged))) continue;
      options.push(o);
    }
    if (options.length === 0) return `no instance type satisfied resources ${JSON.stringify(formatResourceList(requests))} and requirements`;
    let minValuesRelaxed = this.minValuesRelaxed;
    for (const r of merged.values()) {
      if (r.minValues === undefined) continue;
      const n = distinctValues(options, r.key, merged);
      if (n < r.minValues) {
        if (this.minValuesPolicy === 'Strict') return `minValues of ${r.key} not met (${n} < ${r.minValues})`;
        minValuesRelaxed = true;
      }
    }
    return { requirements: merged, options, requests, minValuesRelaxed };
  }

  commit(s: PodState, plan: AddPlan): void {
    this.requirements = plan.requirements;
    this.options = plan.options;
    this.requests = plan.requests;
    this.minValuesRelaxed = plan.minValuesRelaxed;
    for (const k of hostPortKeys(s.pod.hostPorts)) this.hostPorts.add(k);
    this.pods.push(s);
    this.updateMaxFree();
  }
}

export function distinctValues(options: readonly TypeOption[], key: string, reqs: Requirements): number {
  const seen = new Set<string>();
  for (const o of options) {
    if (key === Label.zone || key === Label.capacityType) {
      for (const x of o.offerings) if (offeringMatches(x, reqs)) seen.add(key === Label.zone ? x.zone : x.capacityType);
    } else {
      const v = o.it.labels[key];
      if (v !== undefined) seen.add(v);
    }
  }
  return seen.size;
}

export function incompatibleMessage(key: string, have: Requirements, want: Requirements): string {
  const h = have.get(key);
  const w = want.get(key);
  const fmt = (r: typeof h) => (r ? `${r.operator()}${r.complement ? (r.values.size ? ' [' + [...r.values].join(',') + ']' : '') : ' [' + [...r.values].join(',') + ']'}` : 'undefined');
  return `incompatible requirements, key ${key}, ${fmt(w)} not in ${fmt(h)}`;
}
