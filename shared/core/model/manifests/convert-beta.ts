/** karpenter.sh/v1beta1 NodePool and karpenter.k8s.aws/v1beta1 EC2NodeClass → v1 JSON (docs/karpenter-reference.md §1.3). */
import { fail, obj, str, type Json, type ManifestContext } from './context';
import { UNDERUTILIZED_CONSOLIDATE_AFTER, type ConvertedProvisioner, type Converted } from './convert-alpha';

const ALIAS_BY_FAMILY: Record<string, string> = {
  AL2: 'al2',
  AL2023: 'al2023',
  Bottlerocket: 'bottlerocket',
  Windows2019: 'windows2019',
  Windows2022: 'windows2022',
};

export function convertV1beta1NodePool(o: Json, _ctx?: ManifestContext): ConvertedProvisioner {
  const metadata = obj(o.metadata);
  const name = str(metadata.name) ?? '';
  const spec = obj(o.spec);
  const template = obj(spec.template);
  const tplSpec = { ...obj(template.spec) };
  const warnings: string[] = [];
  const disruption = { ...obj(spec.disruption) };
  const ref = obj(tplSpec.nodeClassRef);
  tplSpec.nodeClassRef = { group: 'karpenter.k8s.aws', kind: str(ref.kind) ?? 'EC2NodeClass', name: str(ref.name) ?? '' };
  if (disruption.expireAfter !== undefined) tplSpec.expireAfter = disruption.expireAfter;
  delete disruption.expireAfter;
  if (disruption.consolidationPolicy === 'WhenUnderutilized') {
    disruption.consolidationPolicy = 'WhenEmptyOrUnderutilized';
    disruption.consolidateAfter ??= UNDERUTILIZED_CONSOLIDATE_AFTER;
  }
  let kubelet: Json | undefined;
  if (tplSpec.kubelet !== undefined) {
    kubelet = obj(tplSpec.kubelet);
    delete tplSpec.kubelet;
  }
  const nodePool: Json = {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: { ...metadata, name },
    spec: { ...spec, template: { ...template, spec: tplSpec }, disruption },
  };
  const out: ConvertedProvisioner = { nodePool, warnings, pathMap: [['spec.template.spec.expireAfter', 'spec.disruption.expireAfter']] };
  if (kubelet) {
    out.kubelet = kubelet;
    out.kubeletPath = 'spec.template.spec.kubelet';
  }
  return out;
}

export function convertV1beta1NodeClass(o: Json, ctx?: ManifestContext): Converted {
  const metadata = obj(o.metadata);
  const spec = { ...obj(o.spec) };
  const family = str(spec.amiFamily);
  if (!family) fail(ctx, 'spec.amiFamily', 'amiFamily is required in karpenter.k8s.aws/v1beta1');
  if (family === 'Ubuntu') fail(ctx, 'spec.amiFamily', 'amiFamily Ubuntu was dropped in v1; use Custom with amiSelectorTerms');
  if (!Array.isArray(spec.amiSelectorTerms) || spec.amiSelectorTerms.length === 0) {
    if (!ALIAS_BY_FAMILY[family]) fail(ctx, 'spec.amiSelectorTerms', `amiFamily ${family} needs amiSelectorTerms`);
    spec.amiSelectorTerms = [{ alias: `${ALIAS_BY_FAMILY[family]}@latest` }];
  }
  return { json: { apiVersion: 'karpenter.k8s.aws/v1', kind: 'EC2NodeClass', metadata, spec }, warnings: [], pathMap: [] };
}
