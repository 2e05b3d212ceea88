/** Mappers for the scheduling-related pieces shared by pods, nodes and volumes. */
import type {
  Affinity,
  LabelSelector,
  LabelSelectorRequirement,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Operator,
  PodAffinityTerm,
  PreferredSchedulingTerm,
  Taint,
  TaintEffect,
  Toleration,
  TopologySpreadConstraint,
  WeightedPodAffinityTerm,
} from '../kube';
import { arr, fail, normalizeKey, num, obj, str, stringMap, type ManifestContext } from './context';

const OPERATORS: ReadonlySet<string> = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte']);
const EFFECTS: ReadonlySet<string> = new Set(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

export function nodeSelectorRequirement(v: unknown, ctx: ManifestContext | undefined, path: string): NodeSelectorRequirement {
  const o = obj(v);
  const key = str(o.key);
  if (!key) fail(ctx, `${path}.key`, 'key is required');
  const operator = str(o.operator) ?? '';
  if (!OPERATORS.has(operator)) fail(ctx, `${path}.operator`, `unsupported operator ${JSON.stringify(o.operator)}`);
  const out: NodeSelectorRequirement = { key: normalizeKey(key), operator: operator as Operator };
  if (Array.isArray(o.values)) out.values = o.values.map((x) => str(x) ?? '');
  const minValues = num(o.minValues);
  if (minValues !== undefined) out.minValues = minValues;
  return out;
}

export function nodeSelectorTerm(v: unknown, ctx: ManifestContext | undefined, path: string): NodeSelectorTerm {
  const o = obj(v);
  const term: NodeSelectorTerm = {
    matchExpressions: arr(o.matchExpressions).map((r, i) => nodeSelectorRequirement(r, ctx, `${path}.matchExpressions[${i}]`)),
  };
  if (Array.isArray(o.matchFields) && o.matchFields.length > 0) {
    term.matchFields = o.matchFields.map((r, i) => nodeSelectorRequirement(r, ctx, `${path}.matchFields[${i}]`));
  }
  return term;
}

export function labelSelector(v: unknown): LabelSelector | undefined {
  if (v === undefined || v === null) return undefined;
  const o = obj(v);
  const out: LabelSelector = {};
  if (o.matchLabels) out.matchLabels = stringMap(o.matchLabels);
  if (Array.isArray(o.matchExpressions)) {
    out.matchExpressions = o.matchExpressions.map((e): LabelSelectorRequirement => {
      const x = obj(e);
      const r: LabelSelectorRequirement = { key: str(x.key) ?? '', operator: (str(x.operator) ?? 'In') as LabelSelectorRequirement['operator'] };
      if (Array.isArray(x.values)) r.values = x.values.map((s) => str(s) ?? '');
      return r;
    });
  }
  return out;
}

export function taint(v: unknown, ctx: ManifestContext | undefined, path: string): Taint {
  const o = obj(v);
  const key = str(o.key);
  if (!key) fail(ctx, `${path}.key`, 'taint key is required');
  const effect = str(o.effect) ?? '';
  if (!EFFECTS.has(effect)) fail(ctx, `${path}.effect`, `taint effect must be one of NoSchedule, PreferNoSchedule, NoExecute, got ${JSON.stringify(o.effect)}`);
  const t: Taint = { key, effect: effect as TaintEffect };
  const value = str(o.value);
  if (value !== undefined && value !== '') t.value = value;
  return t;
}

export function toleration(v: unknown): Toleration {
  const o = obj(v);
  const t: Toleration = {};
  const key = str(o.key);
  if (key !== undefined && key !== '') t.key = key;
  const op = str(o.operator);
  if (op === 'Exists' || op === 'Equal') t.operator = op;
  const value = str(o.value);
  if (value !== undefined) t.value = value;
  const effect = str(o.effect);
  if (effect !== undefined) t.effect = effect as Toleration['effect'];
  const secs = num(o.tolerationSeconds);
  if (secs !== undefined) t.tolerationSeconds = secs;
  return t;
}

function podAffinityTerm(v: unknown): PodAffinityTerm {
  const o = obj(v);
  const term: PodAffinityTerm = { topologyKey: normalizeKey(str(o.topologyKey) ?? '') };
  const sel = labelSelector(o.labelSelector);
  if (sel) term.labelSelector = sel;
  if (Array.isArray(o.namespaces)) term.namespaces = o.namespaces.map((n) => str(n) ?? '');
  const nsSel = labelSelector(o.namespaceSelector);
  if (nsSel) term.namespaceSelector = nsSel;
  if (Array.isArray(o.matchLabelKeys)) term.matchLabelKeys = o.matchLabelKeys.map((n) => str(n) ?? '');
  if (Array.isArray(o.mismatchLabelKeys)) term.mismatchLabelKeys = o.mismatchLabelKeys.map((n) => str(n) ?? '');
  return term;
}

function weightedPodAffinityTerm(v: unknown): WeightedPodAffinityTerm {
  const o = obj(v);
  return { weight: num(o.weight) ?? 1, podAffinityTerm: podAffinityTerm(o.podAffinityTerm) };
}

function podAffinityBlock(v: unknown): { required?: PodAffinityTerm[]; preferred?: WeightedPodAffinityTerm[] } | undefined {
  if (!v) return undefined;
  const o = obj(v);
  const out: { required?: PodAffinityTerm[]; preferred?: WeightedPodAffinityTerm[] } = {};
  const req = arr(o.requiredDuringSchedulingIgnoredDuringExecution);
  const pref = arr(o.preferredDuringSchedulingIgnoredDuringExecution);
  if (req.length) out.required = req.map(podAffinityTerm);
  if (pref.length) out.preferred = pref.map(weightedPodAffinityTerm);
  return out.required || out.preferred ? out : undefined;
}

export function affinity(v: unknown, ctx: ManifestContext | undefined, path: string): Affinity | undefined {
  if (!v) return undefined;
  const o = obj(v);
  const out: Affinity = {};
  if (o.nodeAffinity) {
    const na = obj(o.nodeAffinity);
    const reqTerms = arr(obj(na.requiredDuringSchedulingIgnoredDuringExecution).nodeSelectorTerms);
    const pref = arr(na.preferredDuringSchedulingIgnoredDuringExecution);
    const nodeAffinity: NonNullable<Affinity['nodeAffinity']> = {};
    if (reqTerms.length) {
      nodeAffinity.required = reqTerms.map((t, i) =>
        nodeSelectorTerm(t, ctx, `${path}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[${i}]`),
      );
    }
    if (pref.length) {
      nodeAffinity.preferred = pref.map((p, i): PreferredSchedulingTerm => {
        const po = obj(p);
        return {
          weight: num(po.weight) ?? 1,
          preference: nodeSelectorTerm(po.preference, ctx, `${path}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[${i}].preference`),
        };
      });
    }
    if (nodeAffinity.required || nodeAffinity.preferred) out.nodeAffinity = nodeAffinity;
  }
  const pa = podAffinityBlock(o.podAffinity);
  if (pa) out.podAffinity = pa;
  const paa = podAffinityBlock(o.podAntiAffinity);
  if (paa) out.podAntiAffinity = paa;
  return out.nodeAffinity || out.podAffinity || out.podAntiAffinity ? out : undefined;
}

export function topologySpreadConstraint(v: unknown): TopologySpreadConstraint {
  const o = obj(v);
  const c: TopologySpreadConstraint = {
    maxSkew: num(o.maxSkew) ?? 1,
    topologyKey: normalizeKey(str(o.topologyKey) ?? ''),
    whenUnsatisfiable: str(o.whenUnsatisfiable) === 'ScheduleAnyway' ? 'ScheduleAnyway' : 'DoNotSchedule',
  };
  const sel = labelSelector(o.labelSelector);
  if (sel) c.labelSelector = sel;
  const minDomains = num(o.minDomains);
  if (minDomains !== undefined) c.minDomains = minDomains;
  if (Array.isArray(o.matchLabelKeys)) c.matchLabelKeys = o.matchLabelKeys.map((n) => str(n) ?? '');
  const nap = str(o.nodeAffinityPolicy);
  if (nap === 'Honor' || nap === 'Ignore') c.nodeAffinityPolicy = nap;
  const ntp = str(o.nodeTaintsPolicy);
  if (ntp === 'Honor' || ntp === 'Ignore') c.nodeTaintsPolicy = ntp;
  return c;
}
