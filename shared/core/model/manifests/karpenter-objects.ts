/**
 * The Karpenter part of manifest parsing: every NodePool / EC2NodeClass version is brought to v1 JSON
 * first (conversions may need each other: kubelet settings move from pools to node classes), then
 * validated. Errors on converted objects point at the field the user wrote.
 */
import { canonicalJson } from '../hash';
import { fail, obj, remapPath, str, withPath, type Json, type ManifestContext } from './context';
import { convertAwsNodeTemplate, convertProvisioner, type PathMap } from './convert-alpha';
import { convertV1beta1NodeClass, convertV1beta1NodePool } from './convert-beta';
import { kubeletSchema } from './kubelet';
import type { ManifestSet } from './manifest-set';
import { nodeClassFromKube, nodeClassSchema } from './nodeclass';
import { nodePoolFromKube, nodePoolSchema } from './nodepool';
import { parseOrThrow, unknownFields } from './zod-helpers';

interface Pending {
  json: Json;
  ctx: Required<ManifestContext>;
  /** Appended to problems of converted objects: " (converted from …)". */
  suffix: string;
  converted: boolean;
  pathMap: PathMap;
}

interface PendingPool extends Pending {
  kubelet?: Json;
  kubeletPath?: string;
}

export interface KarpenterObjects {
  pools: PendingPool[];
  classes: Pending[];
}

const SUPPORTED: Record<string, string[]> = {
  NodePool: ['karpenter.sh/v1', 'karpenter.sh/v1beta1'],
  EC2NodeClass: ['karpenter.k8s.aws/v1', 'karpenter.k8s.aws/v1beta1'],
  Provisioner: ['karpenter.sh/v1alpha5'],
  AWSNodeTemplate: ['karpenter.k8s.aws/v1alpha1'],
};

export const isKarpenterKind = (kind: string): boolean => kind in SUPPORTED;

/** Converts one Karpenter object to pending v1 JSON; conversion warnings go to `warn`. */
export function collectKarpenterObject(object: Json, ctx: Required<ManifestContext>, into: KarpenterObjects, warn: (m: string) => void): void {
  const kind = str(object.kind) ?? '';
  const apiVersion = str(object.apiVersion) ?? '';
  if (!SUPPORTED[kind].includes(apiVersion)) {
    fail(ctx, 'apiVersion', `unsupported apiVersion ${JSON.stringify(apiVersion)} for ${kind} (supported: ${SUPPORTED[kind].join(', ')})`);
  }
  const from = ` (converted from ${apiVersion} ${kind})`;
  const plain = { ctx, suffix: '', converted: false, pathMap: [] };
  if (kind === 'NodePool' && apiVersion === 'karpenter.sh/v1') into.pools.push({ ...plain, json: object });
  else if (kind === 'EC2NodeClass' && apiVersion === 'karpenter.k8s.aws/v1') into.classes.push({ ...plain, json: object });
  else if (kind === 'EC2NodeClass') {
    const c = convertV1beta1NodeClass(object, ctx);
    into.classes.push({ json: c.json, ctx, suffix: from, converted: true, pathMap: c.pathMap });
  } else if (kind === 'AWSNodeTemplate') {
    const c = convertAwsNodeTemplate(object, ctx);
    c.warnings.forEach(warn);
    into.classes.push({ json: c.json, ctx, suffix: from, converted: true, pathMap: c.pathMap });
  } else {
    const c = kind === 'Provisioner' ? convertProvisioner(object, ctx) : convertV1beta1NodePool(object, ctx);
    c.warnings.forEach(warn);
    into.pools.push({ json: c.nodePool, ctx, suffix: from, converted: true, pathMap: c.pathMap, kubelet: c.kubelet, kubeletPath: c.kubeletPath });
    if (c.nodeClass) {
      const name = str(obj(object.metadata).name) ?? '';
      into.classes.push({
        json: c.nodeClass,
        ctx,
        suffix: ` (converted from the provider of ${kind} ${name})`,
        converted: true,
        pathMap: c.nodeClassPathMap ?? [],
      });
    }
  }
}

const refOf = (p: PendingPool): Json => obj(obj(obj(obj(p.json.spec).template).spec).nodeClassRef);
const nameOf = (p: Pending): string => str(obj(p.json.metadata).name) ?? '';

/**
 * Moves converted pools' kubelet blocks onto their node class. When every pool using a class agrees, the
 * class gets the block; otherwise each pool with its own block gets a copy of the class named
 * `<class>-<pool>`, so no pool's nodes change kubelet settings.
 */
function attachKubelets({ pools, classes }: KarpenterObjects, set: ManifestSet): void {
  const signature = (p: PendingPool) => (p.kubelet === undefined ? '-' : canonicalJson(p.kubelet));
  for (const pool of pools) {
    if (!pool.kubelet) continue;
    // Validate where the user wrote it, before it moves to another object.
    withPath(
      () => parseOrThrow(kubeletSchema, pool.kubelet, pool.ctx, pool.suffix),
      (p) => `${pool.kubeletPath ?? 'kubelet'}${p && !p.startsWith('[') ? '.' : ''}${p}`,
    );
    const ref = refOf(pool);
    const className = str(ref.name) ?? '';
    const warn = (message: string) => set.warnings.push({ ...pool.ctx, message });
    const target = classes.find((c) => nameOf(c) === className);
    if (!target) {
      warn(`${nameOf(pool)}: kubelet settings could not be moved: EC2NodeClass ${className} is not in these manifests`);
      continue;
    }
    const spec = obj(target.json.spec);
    const agree =
      pools.filter((p) => str(refOf(p).name) === className).every((p) => signature(p) === signature(pool)) &&
      (spec.kubelet === undefined || canonicalJson(spec.kubelet) === canonicalJson(pool.kubelet));
    if (agree) {
      target.json = { ...target.json, spec: { ...spec, kubelet: pool.kubelet } };
      continue;
    }
    const cloneName = `${className}-${nameOf(pool)}`;
    classes.push({
      ...target,
      json: { ...target.json, metadata: { ...obj(target.json.metadata), name: cloneName }, spec: { ...spec, kubelet: pool.kubelet } },
    });
    ref.name = cloneName;
    warn(
      `${nameOf(pool)}: other pools share EC2NodeClass ${className} with different kubelet settings; this pool's kubelet moved to a new EC2NodeClass ${cloneName}`,
    );
  }
}

const TOP_LEVEL = new Set(['apiVersion', 'kind', 'metadata', 'status']);

function warnUnknownFields(items: Pending[], schema: unknown, kind: string, set: ManifestSet): void {
  for (const { json, ctx, converted } of items) {
    if (converted) continue; // conversion already warned about the fields it dropped
    for (const field of unknownFields(schema, json).filter((f) => !TOP_LEVEL.has(f.split(/[.[]/)[0]))) {
      set.warnings.push({ ...ctx, message: `${kind} ${nameOf({ json } as Pending)}: unknown field ${field} was ignored` });
    }
  }
}

/** Validates every pending object (node classes first) and adds them to the set. */
export function finishKarpenterObjects(objects: KarpenterObjects, set: ManifestSet): void {
  attachKubelets(objects, set);
  warnUnknownFields(objects.pools, nodePoolSchema, 'NodePool', set);
  warnUnknownFields(objects.classes, nodeClassSchema, 'EC2NodeClass', set);
  for (const c of objects.classes) {
    const options = { ...c.ctx, problemSuffix: c.suffix, allowMissingIdentity: c.converted, defaultHopLimit: c.converted ? 2 : undefined };
    set.nodeClasses.push(
      withPath(
        () => nodeClassFromKube(c.json, options),
        (p) => remapPath(p, c.pathMap),
      ),
    );
  }
  for (const p of objects.pools) {
    set.nodePools.push(
      withPath(
        () => nodePoolFromKube(p.json, { ...p.ctx, problemSuffix: p.suffix }),
        (path) => remapPath(path, p.pathMap),
      ),
    );
  }
}
