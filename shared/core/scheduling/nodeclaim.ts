/** A NodeClaim being planned: its requirements and instance-type options only shrink as pods are added (docs/karpenter-reference.md §2.3). */
import { Label } from '../model/labels';
import { formatResourceList, type ResourceList } from '../model/resources';
import type { PodState } from './pod-data';
import type { Requirements } from './requirements';
import { hostPortConflict, hostPortKeys } from './host-ports';
import { taintString, untoleratedTaint } from './selectors';
import { type Dims, unionIdx } from './dims';
import { domainAllows, offeringMatcher, offeringMatches, type Template, type TypeOption, typeMatches, OfferingKeys, TypeLabelKeys } from './template';
import type { Topology } from './topology';
import { VolumeUsage } from './volumes';
import { ClaimOptions } from './claim-options';

/** What adding a pod changes: the requirements, and options that go for more than resources (template indices). */
export interface AddPlan {
  requirements: Requirements;
  dropped?: number[];
  minValuesRelaxed: boolean;
}

export class InProgressClaim {
  readonly pods: PodState[] = [];
  /** Σ pod requests as a vector and its non-zero indices. */
  readonly reqVec: Float64Array;
  private nz: number[] = [];
  /** The options left, with the max and min effective allocatable over them (within the min, every option fits). */
  private readonly opts: ClaimOptions;
  readonly hostPorts = new Set<string>();
  readonly volumes = new VolumeUsage();
  minValuesRelaxed = false;
  /** Position in the solver's claim order (kept by the solver). */
  pos = -1;

  constructor(
    readonly template: Template,
    readonly hostname: string,
    readonly index: number,
    public requirements: Requirements,
    options: TypeOption[],
    private readonly minValuesPolicy: 'Strict' | 'BestEffort',
    private readonly dims: Dims,
  ) {
    this.reqVec = new Float64Array(dims.size);
    this.opts = new ClaimOptions(template, options, dims.size);
  }

  /** The instance types the claim can still launch as, cheapest first. */
  get options(): TypeOption[] {
    return this.opts.list;
  }

  /** The template's options, cheapest first, and which the claim still has; `some` tests those (neither builds the list). */
  get optionFlags(): ClaimOptions['flags'] {
    return this.opts.flags;
  }

  someOption(pred: (o: TypeOption) => boolean): boolean {
    return this.opts.some(pred);
  }

  get requests(): ResourceList {
    return this.dims.list(this.reqVec);
  }

  canAdd(s: PodState, topology: Topology): AddPlan | string {
    if (topology.hasGroups) {
      const quick = topology.quickReject(s, this.requirements);
      if (quick) return quick;
    }
    const pv = s.reqVec;
    const maxEff = this.opts.maxEff;
    const nzs = s.reqNz;
    // Indexed loops in this file: they run for every claim a pod tries, mostly before the JIT optimizes them,
    // where for…of allocates an iterator result per step.
    for (let k = 0; k < nzs.length; k++) {
      const i = nzs[k];
      if (this.reqVec[i] + pv[i] > maxEff[i]) return `no instance type has enough ${this.dims.names[i]}${this.pods.length > 0 ? ' left' : ''}`;
    }
    if (this.template.taints.length > 0) {
      const taint = untoleratedTaint(s, this.template.taints);
      if (taint) return `did not tolerate taint ${taintString(taint)}`;
    }
    if (s.pod.hostPorts.length > 0) {
      const c = hostPortConflict(this.hostPorts, s.pod.hostPorts);
      if (c) return c;
    }
    const bad = this.requirements.incompatibleKey(s.requirements);
    if (bad !== undefined) return incompatibleMessage(bad, this.requirements, s.requirements);
    const base = s.requirements.byKey.size === 0 ? this.requirements : this.requirements.intersect(s.requirements);
    if (s.volumeAlternatives.length === 0) return this.tryAdd(s, topology, base);
    // Volume topology alternatives (OR-ed PV / StorageClass terms): the first that works. They narrow the claim,
    // not the pod's own requirements, so topology-spread domains are still counted from the pod's affinity.
    let last = '';
    for (const alt of s.volumeAlternatives) {
      const badVol = base.incompatibleKey(alt);
      if (badVol !== undefined) {
        last = `incompatible volume requirements, ${incompatibleMessage(badVol, base, alt)}`;
        continue;
      }
      const r = this.tryAdd(s, topology, base.intersect(alt));
      if (typeof r !== 'string') return r;
      last = r;
    }
    return last;
  }

  private tryAdd(s: PodState, topology: Topology, requirements: Requirements): AddPlan | string {
    const pv = s.reqVec;
    const merged = topology.hasGroups ? this.withTopology(s, topology, requirements) : requirements;
    if (typeof merged === 'string') return merged;
    const changedTypeKeys: string[] = [];
    const offeringsChanged = merged !== this.requirements && this.changedKeys(merged, changedTypeKeys);
    const n = this.dims.size;
    const reqVec = sumScratch(n);
    for (let i = 0; i < n; i++) reqVec[i] = this.reqVec[i] + pv[i];
    const nz = unionIdx(this.nz, s.reqNz);
    const match = offeringsChanged ? offeringMatcher(merged) : undefined;
    // Types offered in every zone × capacity type need no per-offering check when the domain still allows one.
    const fullOk = match !== undefined && !merged.has(Label.zoneId) && domainAllows(this.template, merged);
    if (match && !fullOk && !merged.has(Label.zoneId) && !domainAllows(this.template, merged)) return 'no offering in the required zone and capacity type';
    const ports = s.pod.hostPorts.length > 0 ? s.pod.hostPorts : undefined;
    const hasVolumes = s.volumes.length > 0;
    // Requests still within every option's allocatable: no option can drop for resources.
    const allFit = requestsFit(reqVec, nz, this.opts.minEff);
    const minValues = hasMinValues(merged);
    if (changedTypeKeys.length === 0 && match === undefined && ports === undefined && !hasVolumes && (allFit || !minValues)) {
      // Only resources can rule options out: the claim's ascending views count them without a scan.
      if (!allFit && this.opts.keptFor(reqVec, nz) === 0) return noTypeMessage(this.dims, reqVec);
      return this.finishAdd(merged, minValues ? this.options : undefined, undefined);
    }
    const all = this.template.options;
    let portConflict: string | undefined;
    let volumeLimited = false;
    const dropped: number[] = [];
    const kept: TypeOption[] | undefined = minValues ? [] : undefined;
    for (let i = 0; i < all.length; i++) {
      const o = all[i];
      if (!this.opts.has(o.rank)) continue;
      let ok = allFit || requestsFit(reqVec, nz, o.eff);
      if (ok && changedTypeKeys.length > 0 && !typeMatches(o.it, merged, changedTypeKeys)) ok = false;
      if (ok && match && !(fullOk && o.full) && !o.offerings.some(match)) ok = false;
      // The type's DaemonSet pods hold host ports the pod wants (Karpenter's per-group HostPortUsage).
      if (ok && ports && o.daemonPorts.size > 0 && hostPortConflict(o.daemonPorts, ports)) {
        ok = false;
        portConflict ??= hostPortConflict(o.daemonPorts, ports);
      }
      // The type cannot attach that many volumes of a driver (e.g. EBS): per-type CSI attach limits.
      if (ok && hasVolumes && this.volumes.wouldExceed(s.volumes, o.it.volumeLimits)) {
        ok = false;
        volumeLimited = true;
      }
      if (!ok) dropped.push(o.rank);
      else kept?.push(o);
    }
    const none = dropped.length === this.opts.size;
    if (none && portConflict) return `${portConflict} by a DaemonSet`;
    if (none && volumeLimited) return 'no instance type can attach that many volumes';
    if (none) return noTypeMessage(this.dims, reqVec);
    return this.finishAdd(merged, kept, dropped.length > 0 ? dropped : undefined);
  }

  /**
   * The claim's requirements narrowed by the pod's topology: domains chosen only where a type that fits the pod
   * is offered (so a spread never pins a zone the claim cannot launch in).
   */
  private withTopology(s: PodState, topology: Topology, requirements: Requirements): Requirements | string {
    const pv = s.reqVec;
    const feasible = (key: string, d: string) =>
      key === Label.zone ? this.zoneFeasible(d, pv, requirements) : !TypeLabelKeys.has(key) || this.typeFeasible(key, d, pv);
    return topology.addRequirements(s, requirements, feasible);
  }

  /** The keys `merged` changes from the claim's requirements: instance-type label keys pushed to `typeKeys`; returns whether an offering key changed. */
  private changedKeys(merged: Requirements, typeKeys: string[]): boolean {
    let offeringsChanged = false;
    const mine = this.requirements;
    merged.byKey.forEach((r, k) => {
      if (mine.get(k) === r) return;
      if (TypeLabelKeys.has(k)) typeKeys.push(k);
      else if (OfferingKeys.has(k)) offeringsChanged = true;
    });
    return offeringsChanged;
  }

  /** `options`: those left after the add, given only when the requirements carry minValues (they are counted then). */
  private finishAdd(merged: Requirements, options: TypeOption[] | undefined, dropped: number[] | undefined): AddPlan | string {
    let minValuesRelaxed = this.minValuesRelaxed;
    for (const r of options ? merged.values() : []) {
      if (r.minValues === undefined) continue;
      const count = distinctValues(options!, r.key, merged);
      if (count < r.minValues) {
        if (this.minValuesPolicy === 'Strict') return `minValues of ${r.key} not met (${count} < ${r.minValues})`;
        minValuesRelaxed = true;
      }
    }
    return { requirements: merged, dropped, minValuesRelaxed };
  }

  private zoneFeasible(zone: string, pv: Float64Array, reqs: Requirements): boolean {
    const ct = reqs.get(Label.capacityType);
    return this.opts.some((o) => this.fitsWith(o, pv) && o.offerings.some((x) => x.zone === zone && (!ct || ct.has(x.capacityType))));
  }

  /** Some option that still fits the pod has `key = value` (a domain on an instance-type label, e.g. arch). */
  private typeFeasible(key: string, value: string, pv: Float64Array): boolean {
    return this.opts.some((o) => o.it.labels[key] === value && this.fitsWith(o, pv));
  }

  /** The claim's requests plus `pv` fit the option. */
  private fitsWith(o: TypeOption, pv: Float64Array): boolean {
    for (let i = 0; i < pv.length; i++) if (this.reqVec[i] + pv[i] > o.eff[i]) return false;
    return true;
  }

  commit(s: PodState, plan: AddPlan): void {
    this.requirements = plan.requirements;
    for (let i = 0; i < this.reqVec.length; i++) this.reqVec[i] += s.reqVec[i];
    this.nz = unionIdx(this.nz, s.reqNz);
    this.opts.commit(this.reqVec, this.nz, plan.dropped);
    this.minValuesRelaxed = plan.minValuesRelaxed;
    if (s.pod.hostPorts.length > 0) for (const k of hostPortKeys(s.pod.hostPorts)) this.hostPorts.add(k);
    if (s.volumes.length > 0) this.volumes.add(s.volumes);
    this.pods.push(s);
  }
}

/** The requests at their non-zero indices `nz` are within `eff`. */
function requestsFit(reqVec: Float64Array, nz: number[], eff: Float64Array): boolean {
  for (let k = 0; k < nz.length; k++) if (reqVec[nz[k]] > eff[nz[k]]) return false;
  return true;
}

/** Σ requests of a tentative add (reused: commit adds the pod's requests to the claim's own vector). */
let sums = new Float64Array(0);
function sumScratch(n: number): Float64Array {
  if (sums.length !== n) sums = new Float64Array(n);
  return sums;
}

function hasMinValues(r: Requirements): boolean {
  for (const x of r.values()) if (x.minValues !== undefined) return true;
  return false;
}

const noTypeMessage = (dims: Dims, reqVec: Float64Array) =>
  `no instance type satisfied resources ${JSON.stringify(formatResourceList(dims.list(reqVec)))} and requirements`;

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

function incompatibleMessage(key: string, have: Requirements, want: Requirements): string {
  const h = have.get(key);
  const w = want.get(key);
  const fmt = (r: typeof h) =>
    r ? `${r.operator()}${r.complement ? (r.values.size ? ' [' + [...r.values].join(',') + ']' : '') : ' [' + [...r.values].join(',') + ']'}` : 'undefined';
  return `incompatible requirements, key ${key}, ${fmt(w)} not in ${fmt(h)}`;
}
