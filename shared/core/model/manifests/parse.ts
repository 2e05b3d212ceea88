/**
 * Multi-document YAML → ManifestSet. Karpenter objects are validated (and older API versions converted);
 * workloads expand to pods; PriorityClass / RuntimeClass objects resolve pod priority and overhead.
 * Unknown kinds are warnings, invalid Karpenter objects are ManifestValidationErrors.
 */
import { parseAllDocuments } from 'yaml';
import { canonicalJson } from '../hash';
import { fail, isObject, num, obj, resources, str, type Json, type ManifestContext, type PodContext } from './context';
import { daemonSetFromKube, nodeFromKube, pdbFromKube, pvcFromKube, pvFromKube, storageClassFromKube } from './cluster-objects';
import { convertAwsNodeTemplate, convertProvisioner } from './convert-alpha';
import { convertV1beta1NodeClass, convertV1beta1NodePool } from './convert-beta';
import { emptyManifestSet, type ManifestSet } from './manifest-set';
import { nodeClaimFromKube } from './nodeclaim';
import { nodeClassFromKube, nodeClassSchema } from './nodeclass';
import { nodePoolFromKube, nodePoolSchema } from './nodepool';
import { podFromKube } from './pod';
import { unknownFields } from './zod-helpers';
import { WorkloadKinds, workloadClaims, workloadFromKube, workloadPods } from './workloads';

export interface ManifestFile {
  text: string;
  file: string;
}

interface Doc {
  object: Json;
  ctx: Required<ManifestContext>;
}

interface PendingClass {
  json: Json;
  ctx: Required<ManifestContext>;
  suffix: string;
  converted: boolean;
}

interface PendingPool extends PendingClass {
  kubelet?: Json;
}

const IGNORED_QUIETLY = new Set(['Namespace', 'Service', 'ConfigMap', 'Secret', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);

function readDocuments(files: ManifestFile[]): Doc[] {
  const docs: Doc[] = [];
  for (const { text, file } of files) {
    parseAllDocuments(text).forEach((d, documentIndex) => {
      const ctx = { file, documentIndex };
      if (d.errors.length) fail(ctx, '', `invalid YAML: ${d.errors[0].message.split('\n')[0]}`);
      const value: unknown = d.toJS();
      if (value === null || value === undefined) return;
      if (!isObject(value)) fail(ctx, '', 'expected a Kubernetes object (a mapping with apiVersion and kind)');
      if (value.kind === 'List' || (typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items))) {
        // API list responses (PodList …) may omit kind on their items.
        const itemKind = value.kind === 'List' ? undefined : (value.kind as string).slice(0, -4);
        for (const item of value.items as unknown[]) {
          if (isObject(item)) docs.push({ object: item.kind || !itemKind ? item : { ...item, kind: itemKind, apiVersion: item.apiVersion ?? value.apiVersion }, ctx });
        }
      } else {
        docs.push({ object: value, ctx });
      }
    });
  }
  return docs;
}

function podContext(docs: Doc[], set: ManifestSet): PodContext {
  const priorityClasses: Record<string, number> = {};
  const runtimeClassOverhead: PodContext['runtimeClassOverhead'] = {};
  let defaultPriority: number | undefined;
  for (const { object, ctx } of docs) {
    const name = str(obj(object.metadata).name) ?? '';
    if (object.kind === 'PriorityClass') {
      const value = num(object.value) ?? 0;
      priorityClasses[name] = value;
      set.priorityClasses.push({ name, value });
      if (object.globalDefault === true) defaultPriority = value;
    } else if (object.kind === 'RuntimeClass') {
      runtimeClassOverhead[name] = resources(obj(object.overhead).podFixed, ctx, 'overhead.podFixed');
    }
  }
  const out: PodContext = { priorityClasses, runtimeClassOverhead };
  if (defaultPriority !== undefined) out.defaultPriority = defaultPriority;
  return out;
}

function unsupportedVersion(ctx: ManifestContext, kind: string, apiVersion: string, supported: string[]): never {
  return fail(ctx, 'apiVersion', `unsupported apiVersion ${JSON.stringify(apiVersion)} for ${kind} (supported: ${supported.join(', ')})`);
}

/**
 * Moves converted pools' kubelet blocks onto their node class. When every pool using a class agrees, the
 * class gets the block; otherwise each pool with its own block gets a copy of the class named
 * `<class>-<pool>`, so no pool's nodes change kubelet settings.
 */
function attachKubelets(pools: PendingPool[], classes: PendingClass[], set: ManifestSet): void {
  const refOf = (p: PendingPool) => obj(obj(obj(obj(p.json.spec).template).spec).nodeClassRef);
  const signature = (p: PendingPool) => (p.kubelet === undefined ? '-' : canonicalJson(p.kubelet));
  for (const pool of pools) {
    if (!pool.kubelet) continue;
    const poolName = str(obj(pool.json.metadata).name) ?? '';
    const ref = refOf(pool);
    const className = str(ref.name) ?? '';
    const warn = (message: string) => set.warnings.push({ file: pool.ctx.file, documentIndex: pool.ctx.documentIndex, message });
    const target = classes.find((c) => str(obj(c.json.metadata).name) === className);
    if (!target) {
      warn(`${poolName}: kubelet settings could not be moved: EC2NodeClass ${className} is not in these manifests`);
      continue;
    }
    const sharers = pools.filter((p) => str(refOf(p).name) === className);
    const spec = obj(target.json.spec);
    const agree = sharers.every((p) => signature(p) === signature(pool))
      && (spec.kubelet === undefined || canonicalJson(spec.kubelet) === canonicalJson(pool.kubelet));
    if (agree) {
      target.json = { ...target.json, spec: { ...spec, kubelet: pool.kubelet } };
      continue;
    }
    const cloneName = `${className}-${poolName}`;
    classes.push({ ...target, json: { ...target.json, metadata: { ...obj(target.json.metadata), name: cloneName }, spec: { ...spec, kubelet: pool.kubelet } } });
    ref.name = cloneName;
    warn(`${poolName}: other pools share EC2NodeClass ${className} with different kubelet settings; this pool's kubelet moved to a new EC2NodeClass ${cloneName}`);
  }
}

const TOP_LEVEL = new Set(['apiVersion', 'kind', 'metadata', 'status']);

function warnUnknownFields(items: PendingClass[], schema: unknown, kind: string, set: ManifestSet): void {
  for (const { json, ctx, converted } of items) {
    if (converted) continue; // conversion already warned about the fields it dropped
    const name = str(obj(json.metadata).name) ?? '';
    for (const field of unknownFields(schema, json).filter((f) => !TOP_LEVEL.has(f.split(/[.[]/)[0]))) {
      set.warnings.push({ ...ctx, message: `${kind} ${name}: unknown field ${field} was ignored` });
    }
  }
}

/** Parses several files as one set, so PriorityClasses, RuntimeClasses and node classes resolve across files. */
export function parseManifestFiles(files: ManifestFile[]): ManifestSet {
  const set = emptyManifestSet();
  const docs = readDocuments(files);
  const podCtx = podContext(docs, set);
  const pools: PendingPool[] = [];
  const classes: PendingClass[] = [];
  for (const { object, ctx } of docs) {
    const kind = str(object.kind) ?? '';
    const apiVersion = str(object.apiVersion) ?? '';
    const name = str(obj(object.metadata).name) ?? '';
    const warn = (message: string) => set.warnings.push({ ...ctx, message });
    const suffix = (from: string) => ` (converted from ${from})`;
    switch (kind) {
      case 'NodePool':
        if (apiVersion === 'karpenter.sh/v1') pools.push({ json: object, ctx, suffix: '', converted: false });
        else if (apiVersion === 'karpenter.sh/v1beta1') {
          const c = convertV1beta1NodePool(object, ctx);
          pools.push({ json: c.nodePool, ctx, suffix: suffix('karpenter.sh/v1beta1 NodePool'), converted: true, kubelet: c.kubelet });
        } else unsupportedVersion(ctx, kind, apiVersion, ['karpenter.sh/v1', 'karpenter.sh/v1beta1']);
        break;
      case 'EC2NodeClass':
        if (apiVersion === 'karpenter.k8s.aws/v1') classes.push({ json: object, ctx, suffix: '', converted: false });
        else if (apiVersion === 'karpenter.k8s.aws/v1beta1') {
          classes.push({ json: convertV1beta1NodeClass(object, ctx).json, ctx, suffix: suffix('karpenter.k8s.aws/v1beta1 EC2NodeClass'), converted: true });
        } else unsupportedVersion(ctx, kind, apiVersion, ['karpenter.k8s.aws/v1', 'karpenter.k8s.aws/v1beta1']);
        break;
      case 'Provisioner': {
        if (apiVersion !== 'karpenter.sh/v1alpha5') unsupportedVersion(ctx, kind, apiVersion, ['karpenter.sh/v1alpha5']);
        const c = convertProvisioner(object, ctx);
        c.warnings.forEach(warn);
        pools.push({ json: c.nodePool, ctx, suffix: suffix('karpenter.sh/v1alpha5 Provisioner'), converted: true, kubelet: c.kubelet });
        if (c.nodeClass) classes.push({ json: c.nodeClass, ctx, suffix: suffix(`the provider of Provisioner ${name}`), converted: true });
        break;
      }
      case 'AWSNodeTemplate': {
        if (apiVersion !== 'karpenter.k8s.aws/v1alpha1') unsupportedVersion(ctx, kind, apiVersion, ['karpenter.k8s.aws/v1alpha1']);
        const c = convertAwsNodeTemplate(object, ctx);
        c.warnings.forEach(warn);
        classes.push({ json: c.json, ctx, suffix: suffix('karpenter.k8s.aws/v1alpha1 AWSNodeTemplate'), converted: true });
        break;
      }
      case 'NodeClaim': set.nodeClaims.push(nodeClaimFromKube(object, ctx)); break;
      case 'Pod': {
        const pod = podFromKube(object, { ...podCtx, ...ctx });
        if (pod.owner?.kind === 'DaemonSet') warn(`Pod ${name} is owned by a DaemonSet and is not treated as a pending pod`);
        else set.pods.push(pod);
        break;
      }
      case 'DaemonSet': set.daemonSets.push(daemonSetFromKube(object, { ...podCtx, ...ctx })); break;
      case 'Node': set.nodes.push(nodeFromKube(object, ctx)); break;
      case 'PodDisruptionBudget': set.pdbs.push(pdbFromKube(object, ctx)); break;
      case 'PersistentVolume': set.persistentVolumes.push(pvFromKube(object, ctx)); break;
      case 'PersistentVolumeClaim': set.persistentVolumeClaims.push(pvcFromKube(object, ctx)); break;
      case 'StorageClass': set.storageClasses.push(storageClassFromKube(object, ctx)); break;
      case 'PriorityClass': case 'RuntimeClass': break;
      default:
        if (WorkloadKinds.has(kind)) {
          const w = workloadFromKube(object, { ...podCtx, ...ctx });
          set.deployments.push(w);
          set.pods.push(...workloadPods(w));
          set.persistentVolumeClaims.push(...workloadClaims(w));
        } else if (!kind) warn('document has no kind; ignored');
        else if (!IGNORED_QUIETLY.has(kind)) warn(`${kind} ${name} is not used by nodewright; ignored`);
    }
  }
  attachKubelets(pools, classes, set);
  warnUnknownFields(pools, nodePoolSchema, 'NodePool', set);
  warnUnknownFields(classes, nodeClassSchema, 'EC2NodeClass', set);
  for (const c of classes) {
    set.nodeClasses.push(nodeClassFromKube(c.json, {
      ...c.ctx, problemSuffix: c.suffix, allowMissingIdentity: c.converted, defaultHopLimit: c.converted ? 2 : undefined,
    }));
  }
  for (const p of pools) set.nodePools.push(nodePoolFromKube(p.json, { ...p.ctx, problemSuffix: p.suffix }));
  return set;
}

/** Parses one multi-document YAML file (`---` separated; `kind: List` items are read too). */
export function parseManifests(text: string, file: string): ManifestSet {
  return parseManifestFiles([{ text, file }]);
}
