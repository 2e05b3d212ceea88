/** Label selectors and taint/toleration matching. */
import type { LabelSelector, Pod, Taint, Toleration } from '../model/kube';
import { TaintKey } from '../model/labels';

export type LabelMatcher = (labels: Record<string, string>) => boolean;

const MATCH_NOTHING: LabelMatcher = () => false;

/** Compiles a LabelSelector; a null/undefined selector matches nothing (Kubernetes semantics for affinity terms). */
export function compileSelector(sel: LabelSelector | undefined | null): LabelMatcher {
  if (!sel) return MATCH_NOTHING;
  const ml = Object.entries(sel.matchLabels ?? {});
  const me = (sel.matchExpressions ?? []).map((e) => ({ key: e.key, op: e.operator, values: new Set(e.values ?? []) }));
  // Indexed loops: a selector is tried against every pod of its namespace, mostly before the JIT optimizes it.
  return (labels) => {
    for (let i = 0; i < ml.length; i++) if (labels[ml[i][0]] !== ml[i][1]) return false;
    for (let i = 0; i < me.length; i++) {
      const e = me[i];
      const v = labels[e.key];
      switch (e.op) {
        case 'In':
          if (v === undefined || !e.values.has(v)) return false;
          break;
        case 'NotIn':
          if (v !== undefined && e.values.has(v)) return false;
          break;
        case 'Exists':
          if (v === undefined) return false;
          break;
        case 'DoesNotExist':
          if (v !== undefined) return false;
          break;
      }
    }
    return true;
  };
}

/** Canonical string for a selector (to de-duplicate topology groups). */
export function selectorKey(sel: LabelSelector | undefined | null): string {
  if (!sel) return 'nil';
  const ml = Object.entries(sel.matchLabels ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
  const me = (sel.matchExpressions ?? []).map((e) => `${e.key}|${e.operator}|${[...(e.values ?? [])].sort().join(',')}`).sort();
  return JSON.stringify([ml, me]);
}

export function tolerates(tolerations: readonly Toleration[], taint: Taint): boolean {
  for (const t of tolerations) {
    if (t.effect && t.effect !== taint.effect) continue;
    if (!t.key) {
      if (t.operator === 'Exists') return true;
      continue;
    }
    if (t.key !== taint.key) continue;
    if (t.operator === 'Exists') return true;
    if ((t.value ?? '') === (taint.value ?? '')) return true;
  }
  return false;
}

/** Taints an uninitialized node carries only until it is ready; never block scheduling onto it (docs/karpenter-reference.md §2.5). */
const EphemeralTaintKeys: ReadonlySet<string> = new Set([TaintKey.notReady, TaintKey.unreachable, TaintKey.uninitialized, TaintKey.unregistered]);

/** The first taint the pod does not tolerate, or undefined. */
export function untoleratedTaint(
  pod: Pod | { tolerations: readonly Toleration[] },
  taints: readonly Taint[],
  opts: { ignoreEphemeral?: boolean } = {},
): Taint | undefined {
  for (const taint of taints) {
    if (opts.ignoreEphemeral && EphemeralTaintKeys.has(taint.key)) continue;
    if (!tolerates(pod.tolerations, taint)) return taint;
  }
  return undefined;
}

export function taintString(t: Taint): string {
  return `${t.key}${t.value ? '=' + t.value : ''}:${t.effect}`;
}
