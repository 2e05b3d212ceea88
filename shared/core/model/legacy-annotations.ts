/**
 * The pre-v1 annotations nodewright still honours (karpenter.sh/do-not-evict on pods, karpenter.sh/do-not-consolidate
 * on nodes, NodeClaims or a NodePool template, e.g. a converted Provisioner's annotations), and the one warning per
 * distinct old key that `plan`, `explain` and the disruption pass print when they see one.
 */
import type { NodePool, NodeClaim } from './karpenter';
import type { Node, Pod } from './kube';
import { Annotation } from './labels';

const LEGACY: readonly { key: string; on: string; what: string }[] = [
  { key: Annotation.doNotEvict, on: 'pods', what: `blocks voluntary disruption of the pod's node; use ${Annotation.doNotDisrupt}: "true" on the pod` },
  {
    key: Annotation.doNotConsolidate,
    on: 'nodes',
    what: `blocks consolidation of the node (not drift or expiration); use ${Annotation.doNotDisrupt}: "true" on the node or the NodePool template`,
  },
];

export interface AnnotatedObjects {
  pods?: readonly Pick<Pod, 'annotations'>[];
  nodes?: readonly Pick<Node, 'annotations'>[];
  nodeClaims?: readonly Pick<NodeClaim, 'annotations'>[];
  nodePools?: readonly Pick<NodePool, 'template'>[];
}

/** One warning line per deprecated key present (value "true") anywhere in the objects, in a fixed order. */
export function legacyAnnotationWarnings(o: AnnotatedObjects): string[] {
  const maps: Record<string, Record<string, string>[]> = {
    pods: (o.pods ?? []).map((p) => p.annotations),
    nodes: [...(o.nodes ?? []), ...(o.nodeClaims ?? [])].map((n) => n.annotations).concat((o.nodePools ?? []).map((p) => p.template.annotations)),
  };
  return LEGACY.filter((l) => maps[l.on].some((a) => a?.[l.key] === 'true')).map((l) => `${l.key} is deprecated and honoured as an alias: it ${l.what}`);
}
