/**
 * Multi-document YAML → ManifestSet. Karpenter objects are validated (and older API versions converted);
 * workloads expand to pods; PriorityClass / RuntimeClass objects resolve pod priority and overhead.
 * Unknown kinds are warnings, invalid Karpenter objects are ManifestValidationErrors.
 */
import { parseAllDocuments } from 'yaml';
import { fail, isObject, num, obj, resources, str, type Json, type ManifestContext, type PodContext } from './context';
import { daemonSetFromKube, namespaceFromKube, nodeFromKube, pdbFromKube, pvcFromKube, pvFromKube, storageClassFromKube } from './cluster-objects';
import { collectKarpenterObject, finishKarpenterObjects, isKarpenterKind, type KarpenterObjects } from './karpenter-objects';
import { eachManifestYaml, loadAllManifestYaml } from './block-yaml';
import { emptyManifestSet, type ManifestSet } from './manifest-set';
import { nodeClaimFromKube } from './nodeclaim';
import { nodeOverlayFromKube } from './nodeoverlay';
import { capacityBufferFromKube, podTemplateFromKube } from './capacitybuffer';
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
export const HAS_ANCHOR_ALIAS_OR_TAG = /(^|[\s[{,:-])[&*!][^\s]/m;
const WHITESPACE = /\s/;
const BEFORE_INDICATOR = /[\s[{,:-]/;

/**
 * HAS_ANCHOR_ALIAS_OR_TAG.test(text), found by a scan for the three indicator characters (rare in manifests)
 * and a look at their neighbours: the pattern's alternation tried at every position cost more than the rest of
 * the read of a large file.
 */
export function hasAnchorAliasOrTag(text: string): boolean {
  // One indexOf per character (a memchr-like search) is several times cheaper than a class pattern over the text.
  for (const indicator of '&*!') {
    for (let p = text.indexOf(indicator); p >= 0; p = text.indexOf(indicator, p + 1)) {
      if (p + 1 >= text.length || WHITESPACE.test(text[p + 1])) continue;
      if (p === 0 || BEFORE_INDICATOR.test(text[p - 1])) return true;
    }
  }
  return false;
}

function fastValues(text: string): unknown[] | undefined {
  if (hasAnchorAliasOrTag(text)) return undefined;
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

/** A document's objects (a List's items, or the document itself) to `add`; throws when it is not an object. */
function expandDocument(value: unknown, ctx: Required<ManifestContext>, add: (doc: Doc) => void): void {
  if (value === null || value === undefined) return;
  if (!isObject(value)) fail(ctx, '', 'expected a Kubernetes object (a mapping with apiVersion and kind)');
  if (value.kind === 'List' || (typeof value.kind === 'string' && value.kind.endsWith('List') && value.items !== undefined)) {
    // API list responses (PodList …) may omit kind on their items.
    const itemKind = value.kind === 'List' ? undefined : (value.kind as string).slice(0, -4);
    for (const item of listItems(value, ctx)) {
      add({ object: item.kind || !itemKind ? item : { ...item, kind: itemKind, apiVersion: item.apiVersion ?? value.apiVersion }, ctx });
    }
  } else {
    add({ object: value, ctx });
  }
}

function readDocuments(files: ManifestFile[]): Doc[] {
  const docs: Doc[] = [];
  const add = (d: Doc) => docs.push(d);
  for (const { text, file } of files) documentValues(text, file).forEach(({ value, ctx }) => expandDocument(value, ctx, add));
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

/** What reading a set's objects builds up. */
interface Collected {
  set: ManifestSet;
  karpenter: KarpenterObjects;
  podSource: Map<ManifestSet['pods'][number], Required<ManifestContext>>;
  podCtx: PodContext;
  /** One context object for every Pod document (podFromKube reads it only while it runs, for errors and priority). */
  podDocCtx: PodContext & Required<ManifestContext>;
}

function collected(set: ManifestSet, podCtx: PodContext): Collected {
  return { set, karpenter: { pools: [], classes: [] }, podSource: new Map(), podCtx, podDocCtx: { ...podCtx, file: '', documentIndex: 0 } };
}

const warnAt = (c: Collected, ctx: Required<ManifestContext>, message: string) => c.set.warnings.push({ ...ctx, message });

/** The autoscaling API kinds besides NodePool / EC2NodeClass: NodeOverlay, CapacityBuffer and its PodTemplate. True when `kind` was one. */
function collectAutoscalingObject(c: Collected, object: Json, ctx: Required<ManifestContext>, kind: string, name: string): boolean {
  switch (kind) {
    case 'CapacityBuffer':
      if (str(object.apiVersion) !== 'autoscaling.x-k8s.io/v1beta1') {
        fail(
          ctx,
          'apiVersion',
          `unsupported apiVersion ${JSON.stringify(str(object.apiVersion) ?? '')} for CapacityBuffer (supported: autoscaling.x-k8s.io/v1beta1)`,
        );
      }
      c.set.capacityBuffers.push(capacityBufferFromKube(object, ctx));
      break;
    case 'PodTemplate':
      if (!name) fail(ctx, 'metadata.name', 'metadata.name is required');
      c.set.podTemplates.push(podTemplateFromKube(object, { ...c.podCtx, ...ctx }));
      break;
    case 'NodeOverlay':
      if (str(object.apiVersion) !== 'karpenter.sh/v1alpha1') {
        fail(ctx, 'apiVersion', `unsupported apiVersion ${JSON.stringify(str(object.apiVersion) ?? '')} for NodeOverlay (supported: karpenter.sh/v1alpha1)`);
      }
      c.set.nodeOverlays.push(nodeOverlayFromKube(object, ctx));
      break;
    default:
      return false;
  }
  return true;
}

/** Adds one object to the set. */
function collect(c: Collected, { object, ctx }: Doc): void {
  const kind = str(object.kind) ?? '';
  const name = str(obj(object.metadata).name) ?? '';
  if (isKarpenterKind(kind)) {
    collectKarpenterObject(object, ctx, c.karpenter, (message) => warnAt(c, ctx, message));
    return;
  }
  if (collectAutoscalingObject(c, object, ctx, kind, name)) return;
  switch (kind) {
    case 'NodeClaim':
      c.set.nodeClaims.push(nodeClaimFromKube(object, ctx));
      break;
    case 'Pod': {
      if (!name) fail(ctx, 'metadata.name', 'metadata.name is required');
      c.podDocCtx.file = ctx.file;
      c.podDocCtx.documentIndex = ctx.documentIndex;
      const pod = podFromKube(object, c.podDocCtx);
      // A DaemonSet's pod bound to a node uses that node's capacity (at its own size, which may exceed the
      // template's); one not bound yet is the DaemonSet's business, never a reason to provision.
      if (pod.owner?.kind === 'DaemonSet' && !pod.nodeName) warnAt(c, ctx, `Pod ${name} is owned by a DaemonSet and is not treated as a pending pod`);
      else {
        c.set.pods.push(pod);
        c.podSource.set(pod, ctx);
      }
      break;
    }
    case 'DaemonSet':
      c.set.daemonSets.push(daemonSetFromKube(object, { ...c.podCtx, ...ctx }));
      break;
    case 'Node':
      c.set.nodes.push(nodeFromKube(object, ctx));
      break;
    case 'PodDisruptionBudget':
      c.set.pdbs.push(pdbFromKube(object, ctx));
      break;
    case 'PersistentVolume':
      c.set.persistentVolumes.push(pvFromKube(object, ctx));
      break;
    case 'PersistentVolumeClaim':
      c.set.persistentVolumeClaims.push(pvcFromKube(object, ctx));
      break;
    case 'StorageClass':
      c.set.storageClasses.push(storageClassFromKube(object, ctx));
      break;
    case 'Namespace':
      if (!name) fail(ctx, 'metadata.name', 'metadata.name is required');
      c.set.namespaces.push(namespaceFromKube(object));
      break;
    case 'PriorityClass':
    case 'RuntimeClass':
      break;
    default:
      if (WorkloadKinds.has(kind)) {
        if (!name) fail(ctx, 'metadata.name', 'metadata.name is required');
        const w = workloadFromKube(object, { ...c.podCtx, ...ctx });
        if (c.set.pods.length + w.replicas > MAX_EXPANDED_PODS) {
          const already = c.set.pods.length ? ` (on top of ${c.set.pods.length.toLocaleString('en-US')} pods already read)` : '';
          fail(
            ctx,
            replicasField(object),
            `${w.kind} ${w.namespace}/${w.name} asks for ${w.replicas.toLocaleString('en-US')} pods${already}; ` +
              `nodewright expands at most ${MAX_EXPANDED_PODS.toLocaleString('en-US')} pods per plan (see docs/manifests.md)`,
          );
        }
        c.set.deployments.push(w);
        for (const pod of workloadPods(w)) {
          c.set.pods.push(pod);
          c.podSource.set(pod, ctx);
        }
        c.set.persistentVolumeClaims.push(...workloadClaims(w));
      } else if (!kind) warnAt(c, ctx, 'document has no kind; ignored');
      else if (!IGNORED_QUIETLY.has(kind)) warnAt(c, ctx, `${kind} ${name} is not used by nodewright; ignored`);
  }
}

function finish(c: Collected): ManifestSet {
  finishKarpenterObjects(c.karpenter, c.set);
  c.set.pods = lastDefinitionOfEachPod(c.set, c.podSource);
  return c.set;
}

/** PriorityClasses and RuntimeClasses shape every pod: a set that may hold one is read in two passes. */
const mayHoldPodContext = (text: string): boolean => text.includes('PriorityClass') || text.includes('RuntimeClass');

/**
 * One pass over files without pod context: each document is converted as soon as it is read, so no document
 * tree outlives its conversion. Undefined when a file is not for the fast YAML path (the two-pass read then
 * decides everything, messages included). Errors keep the two-pass order: a file's YAML errors, then its
 * non-object documents, then (once every file is read) the first conversion error.
 */
function streamManifestFiles(files: ManifestFile[]): ManifestSet | undefined {
  const c = collected(emptyManifestSet(), { priorityClasses: Object.create(null), runtimeClassOverhead: Object.create(null) });
  // The first error of each kind, held until the two-pass read would have thrown it.
  let converting: { error: unknown } | undefined;
  const add = (d: Doc) => {
    if (converting) return;
    try {
      collect(c, d);
    } catch (error) {
      converting = { error };
    }
  };
  for (const { text, file } of files) {
    if (hasAnchorAliasOrTag(text)) return undefined;
    let documentIndex = 0;
    let reading: { error: unknown } | undefined;
    try {
      eachManifestYaml(text, (value) => {
        const ctx = { file, documentIndex: documentIndex++ };
        if (reading) return;
        try {
          expandDocument(value, ctx, add);
        } catch (error) {
          reading = { error };
        }
      });
    } catch {
      return undefined;
    }
    if (reading) throw reading.error;
  }
  if (converting) throw converting.error;
  return finish(c);
}

/** Parses several files as one set, so PriorityClasses, RuntimeClasses and node classes resolve across files. */
export function parseManifestFiles(files: ManifestFile[]): ManifestSet {
  const streamed = files.some((f) => mayHoldPodContext(f.text)) ? undefined : streamManifestFiles(files);
  if (streamed) return streamed;
  const set = emptyManifestSet();
  const docs = readDocuments(files);
  const c = collected(set, podContext(docs, set));
  for (const d of docs) collect(c, d);
  return finish(c);
}

/** Parses one multi-document YAML file (`---` separated; `kind: List` items are read too). */
export function parseManifests(text: string, file: string): ManifestSet {
  return parseManifestFiles([{ text, file }]);
}
