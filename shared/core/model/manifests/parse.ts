/**
 * Multi-document YAML → ManifestSet. Karpenter objects are validated (and older API versions converted);
 * workloads expand to pods; PriorityClass / RuntimeClass objects resolve pod priority and overhead.
 * Unknown kinds are warnings, invalid Karpenter objects are ManifestValidationErrors.
 */
import { parseAllDocuments } from 'yaml';
import { fail, isObject, num, obj, resources, str, type Json, type ManifestContext, type PodContext } from './context';
import { daemonSetFromKube, nodeFromKube, pdbFromKube, pvcFromKube, pvFromKube, storageClassFromKube } from './cluster-objects';
import { collectKarpenterObject, finishKarpenterObjects, isKarpenterKind, type KarpenterObjects } from './karpenter-objects';
import { loadAllManifestYaml } from './block-yaml';
import { emptyManifestSet, type ManifestSet } from './manifest-set';
import { nodeClaimFromKube } from './nodeclaim';
import { podFromKube } from './pod';
import { MAX_EXPANDED_PODS, WorkloadKinds, replicasField, workloadClaims, workloadFromKube, workloadPods } from './workloads';

export interface ManifestFile {
  text: string;
  file: string;
}

interface Doc {
  object: Json;
  ctx: Required<ManifestContext>;
}

const IGNORED_QUIETLY = new Set(['Namespace', 'Service', 'ConfigMap', 'Secret', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding']);

/**
 * How many alias resolutions one YAML document may make (the yaml library's `maxAliasCount`): enough for
 * anchors and merge keys in real manifests, far too few for a "billion laughs" document to expand.
 */
const MAX_YAML_ALIASES = 100;

/** Options used for every manifest YAML parse (also by the scenario reader). */
export const YAML_OPTIONS = { merge: true } as const;
export const YAML_TO_JS_OPTIONS = { maxAliasCount: MAX_YAML_ALIASES } as const;

/** A document's value; an alias bomb or an unresolved alias is a ManifestValidationError for its document. */
function documentValue(d: ReturnType<typeof parseAllDocuments>[number], ctx: Required<ManifestContext>): unknown {
  if (d.errors.length) fail(ctx, '', `invalid YAML: ${d.errors[0].message.split('\n')[0]}`);
  try {
    return d.toJS(YAML_TO_JS_OPTIONS);
  } catch (e) {
    const message = (e as Error).message.split('\n')[0];
    if (/excessive alias count/i.test(message)) {
      fail(ctx, '', `invalid YAML: more than ${MAX_YAML_ALIASES} alias expansions (${message})`);
    }
    fail(ctx, '', `invalid YAML: ${message}`);
  }
}

/** The items of a `List` / `XList` document; `items` must be a list of objects (null or absent is empty). */
function listItems(value: Json, ctx: Required<ManifestContext>): Json[] {
  const items = value.items ?? [];
  if (!Array.isArray(items))
    fail(ctx, 'items', `expected a list of Kubernetes objects, got ${typeof items === 'object' ? 'an object' : JSON.stringify(items)}`);
  return items.map((item, i) => {
    if (!isObject(item)) fail(ctx, `items[${i}]`, 'expected a Kubernetes object (a mapping with apiVersion and kind)');
    return item;
  });
}

/**
 * The fast path for plain manifests: js-yaml (YAML 1.2 core schema plus merge keys, as the `yaml` library is
 * used here) parses large files about 6× faster, and the block subset tools write is read faster still
 * (./block-yaml.ts, the same values). It is taken only for text without anchors, aliases or tags —
 * js-yaml shares aliased nodes instead of counting expansions, so alias bombs must go through the `yaml`
 * library's limit — and any js-yaml error falls back to the `yaml` path, so every message stays the same.
 */
const HAS_ANCHOR_ALIAS_OR_TAG = /(^|[\s[{,:-])[&*!][^\s]/m;

function fastValues(text: string): unknown[] | undefined {
  if (HAS_ANCHOR_ALIAS_OR_TAG.test(text)) return undefined;
  try {
    return loadAllManifestYaml(text);
  } catch {
    return undefined;
  }
}

/** Every document's value with its context; `fast: false` forces the `yaml` library (tests compare the two). */
export function documentValues(text: string, file: string, fast = true): { value: unknown; ctx: Required<ManifestContext> }[] {
  const values = fast ? fastValues(text) : undefined;
  if (values) return values.map((value, documentIndex) => ({ value, ctx: { file, documentIndex } }));
  return parseAllDocuments(text, YAML_OPTIONS).map((d, documentIndex) => {
    const ctx = { file, documentIndex };
    return { value: documentValue(d, ctx), ctx };
  });
}

function readDocuments(files: ManifestFile[]): Doc[] {
  const docs: Doc[] = [];
  for (const { text, file } of files) {
    documentValues(text, file).forEach(({ value, ctx }) => {
      if (value === null || value === undefined) return;
      if (!isObject(value)) fail(ctx, '', 'expected a Kubernetes object (a mapping with apiVersion and kind)');
      if (value.kind === 'List' || (typeof value.kind === 'string' && value.kind.endsWith('List') && value.items !== undefined)) {
        // API list responses (PodList …) may omit kind on their items.
        const itemKind = value.kind === 'List' ? undefined : (value.kind as string).slice(0, -4);
        for (const item of listItems(value, ctx)) {
          docs.push({ object: item.kind || !itemKind ? item : { ...item, kind: itemKind, apiVersion: item.apiVersion ?? value.apiVersion }, ctx });
        }
      } else {
        docs.push({ object: value, ctx });
      }
    });
  }
  return docs;
}

function podContext(docs: Doc[], set: ManifestSet): PodContext {
  // Null-prototype maps: a class named "__proto__" is just a name.
  const priorityClasses = Object.create(null) as Record<string, number>;
  const runtimeClassOverhead = Object.create(null) as NonNullable<PodContext['runtimeClassOverhead']>;
  let defaultPriority: number | undefined;
  for (const { object, ctx } of docs) {
    if (object.kind !== 'PriorityClass' && object.kind !== 'RuntimeClass') continue;
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

/** A pod defined twice in one set (two Pods, or two workloads of one name) is planned once: the last one wins. */
function lastDefinitionOfEachPod(set: ManifestSet, from: Map<ManifestSet['pods'][number], Required<ManifestContext>>): ManifestSet['pods'] {
  const byKey = new Map<string, ManifestSet['pods'][number]>();
  for (const pod of set.pods) {
    const key = `${pod.namespace}/${pod.name}`;
    if (byKey.delete(key)) set.warnings.push({ ...from.get(pod)!, message: `pod ${key} is defined more than once; the last definition is used` });
    byKey.set(key, pod);
  }
  return [...byKey.values()];
}

/** Parses several files as one set, so PriorityClasses, RuntimeClasses and node classes resolve across files. */
export function parseManifestFiles(files: ManifestFile[]): ManifestSet {
  const set = emptyManifestSet();
  const docs = readDocuments(files);
  const podCtx = podContext(docs, set);
  const karpenter: KarpenterObjects = { pools: [], classes: [] };
  const podSource = new Map<ManifestSet['pods'][number], Required<ManifestContext>>();
  // One context object for every Pod document (podFromKube reads it only while it runs, for errors and priority).
  const podDocCtx: PodContext & Required<ManifestContext> = { ...podCtx, file: '', documentIndex: 0 };
  for (const { object, ctx } of docs) {
    const kind = str(object.kind) ?? '';
    const name = str(obj(object.metadata).name) ?? '';
    const warn = (message: string) => set.warnings.push({ ...ctx, message });
    if (isKarpenterKind(kind)) {
      collectKarpenterObject(object, ctx, karpenter, warn);
      continue;
    }
    switch (kind) {
      case 'NodeClaim':
        set.nodeClaims.push(nodeClaimFromKube(object, ctx));
        break;
      case 'Pod': {
        if (!name) fail(ctx, 'metadata.name', 'metadata.name is required');
        podDocCtx.file = ctx.file;
        podDocCtx.documentIndex = ctx.documentIndex;
        const pod = podFromKube(object, podDocCtx);
        // A DaemonSet's pod bound to a node uses that node's capacity (at its own size, which may exceed the
        // template's); one not bound yet is the DaemonSet's business, never a reason to provision.
        if (pod.owner?.kind === 'DaemonSet' && !pod.nodeName) warn(`Pod ${name} is owned by a DaemonSet and is not treated as a pending pod`);
        else {
          set.pods.push(pod);
          podSource.set(pod, ctx);
        }
        break;
      }
      case 'DaemonSet':
        set.daemonSets.push(daemonSetFromKube(object, { ...podCtx, ...ctx }));
        break;
      case 'Node':
        set.nodes.push(nodeFromKube(object, ctx));
        break;
      case 'PodDisruptionBudget':
        set.pdbs.push(pdbFromKube(object, ctx));
        break;
      case 'PersistentVolume':
        set.persistentVolumes.push(pvFromKube(object, ctx));
        break;
      case 'PersistentVolumeClaim':
        set.persistentVolumeClaims.push(pvcFromKube(object, ctx));
        break;
      case 'StorageClass':
        set.storageClasses.push(storageClassFromKube(object, ctx));
        break;
      case 'PriorityClass':
      case 'RuntimeClass':
        break;
      default:
        if (WorkloadKinds.has(kind)) {
          if (!name) fail(ctx, 'metadata.name', 'metadata.name is required');
          const w = workloadFromKube(object, { ...podCtx, ...ctx });
          if (set.pods.length + w.replicas > MAX_EXPANDED_PODS) {
            const already = set.pods.length ? ` (on top of ${set.pods.length.toLocaleString('en-US')} pods already read)` : '';
            fail(
              ctx,
              replicasField(object),
              `${w.kind} ${w.namespace}/${w.name} asks for ${w.replicas.toLocaleString('en-US')} pods${already}; ` +
                `nodewright expands at most ${MAX_EXPANDED_PODS.toLocaleString('en-US')} pods per plan (see docs/manifests.md)`,
            );
          }
          set.deployments.push(w);
          for (const pod of workloadPods(w)) {
            set.pods.push(pod);
            podSource.set(pod, ctx);
          }
          set.persistentVolumeClaims.push(...workloadClaims(w));
        } else if (!kind) warn('document has no kind; ignored');
        else if (!IGNORED_QUIETLY.has(kind)) warn(`${kind} ${name} is not used by nodewright; ignored`);
    }
  }
  finishKarpenterObjects(karpenter, set);
  set.pods = lastDefinitionOfEachPod(set, podSource);
  return set;
}

/** Parses one multi-document YAML file (`---` separated; `kind: List` items are read too). */
export function parseManifests(text: string, file: string): ManifestSet {
  return parseManifestFiles([{ text, file }]);
}
