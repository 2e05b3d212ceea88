/** The resource types the fake API server serves: built-in ones, plus custom resources read from CRD manifests. */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import type { Json, ResourceType } from './types';

const t = (
  group: string,
  version: string,
  resource: string,
  kind: string,
  namespaced: boolean,
  subresources: string[] = [],
  shortNames?: string[],
  categories?: string[],
): ResourceType => ({
  group,
  version,
  resource,
  kind,
  namespaced,
  subresources,
  shortNames,
  singular: kind.toLowerCase(),
  ...(categories ? { categories } : {}),
});

/** `kubectl get all` lists the resources in the `all` category, as a real API server's discovery says. */
const ALL = ['all'];

export const BUILTIN_RESOURCES: readonly ResourceType[] = [
  t('', 'v1', 'namespaces', 'Namespace', false, ['status'], ['ns']),
  t('', 'v1', 'nodes', 'Node', false, ['status'], ['no']),
  t('', 'v1', 'pods', 'Pod', true, ['status', 'eviction', 'binding'], ['po'], ALL),
  t('', 'v1', 'services', 'Service', true, ['status'], ['svc'], ALL),
  t('', 'v1', 'persistentvolumes', 'PersistentVolume', false, ['status'], ['pv']),
  t('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim', true, ['status'], ['pvc']),
  t('', 'v1', 'events', 'Event', true, [], ['ev']),
  t('', 'v1', 'podtemplates', 'PodTemplate', true, []),
  t('apps', 'v1', 'deployments', 'Deployment', true, ['status', 'scale'], ['deploy'], ALL),
  t('apps', 'v1', 'replicasets', 'ReplicaSet', true, ['status', 'scale'], ['rs'], ALL),
  t('apps', 'v1', 'statefulsets', 'StatefulSet', true, ['status', 'scale'], ['sts'], ALL),
  t('apps', 'v1', 'daemonsets', 'DaemonSet', true, ['status'], ['ds'], ALL),
  t('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true, ['status'], ['pdb']),
  t('storage.k8s.io', 'v1', 'storageclasses', 'StorageClass', false, [], ['sc']),
  t('storage.k8s.io', 'v1', 'csinodes', 'CSINode', false, []),
  t('scheduling.k8s.io', 'v1', 'priorityclasses', 'PriorityClass', false, [], ['pc']),
  t('coordination.k8s.io', 'v1', 'leases', 'Lease', true, []),
  t('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false, ['status'], ['crd', 'crds']),
];

class CrdInvalidError extends Error {
  override readonly name = 'CrdInvalidError' as const;
}

/** Reads the served version, scope and names of a CustomResourceDefinition object. */
export function resourceTypeFromCrd(crd: Json, where = 'CustomResourceDefinition'): ResourceType {
  const spec = crd.spec as Json | undefined;
  const names = spec?.names as Json | undefined;
  const versions = (spec?.versions ?? []) as Json[];
  const served = versions.find((v) => v.storage === true) ?? versions.find((v) => v.served !== false);
  if (!spec || !names || typeof spec.group !== 'string' || typeof names.plural !== 'string' || typeof names.kind !== 'string' || !served) {
    throw new CrdInvalidError(`${where}: spec.group, spec.names.plural, spec.names.kind and one served version are required`);
  }
  const sub = (served.subresources ?? {}) as Json;
  return {
    group: spec.group,
    version: String(served.name),
    resource: names.plural,
    singular: typeof names.singular === 'string' ? names.singular : names.kind.toLowerCase(),
    kind: names.kind,
    namespaced: spec.scope === 'Namespaced',
    shortNames: (names.shortNames as string[] | undefined) ?? undefined,
    categories: (names.categories as string[] | undefined) ?? undefined,
    subresources: Object.keys(sub).filter((k) => k === 'status' || k === 'scale'),
    ...((served.schema as Json | undefined)?.openAPIV3Schema ? { schema: (served.schema as Json).openAPIV3Schema as Json } : {}),
  };
}

/** The repository's infra/crds directory (NodePool, NodeClaim, EC2NodeClass); relative to the working directory when bundled. */
function defaultCrdDir(): string {
  try {
    return resolve(dirname(fileURLToPath(import.meta.url)), '../../../infra/crds');
  } catch {
    return resolve('infra/crds');
  }
}

/** Parses every CRD document of every .yaml file in `dir`. */
export function loadCrds(dir: string = defaultCrdDir()): Json[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort();
  const out: Json[] = [];
  for (const f of files) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, f), 'utf8'))) {
      const o = doc.toJS() as Json | null;
      if (o && o.kind === 'CustomResourceDefinition') out.push(o);
    }
  }
  return out;
}

/** Lookup of resource types by group and plural (and by kind, for clients that only know the kind). */
export class ResourceRegistry {
  private readonly byKey = new Map<string, ResourceType>();
  constructor(types: readonly ResourceType[] = BUILTIN_RESOURCES) {
    for (const rt of types) this.add(rt);
  }
  add(rt: ResourceType): void {
    this.byKey.set(`${rt.group}/${rt.resource}`, rt);
  }
  get(group: string, resource: string): ResourceType | undefined {
    return this.byKey.get(`${group}/${resource}`);
  }
  byKind(kind: string, group?: string): ResourceType | undefined {
    return this.all().find((rt) => rt.kind === kind && (group === undefined || rt.group === group));
  }
  all(): ResourceType[] {
    return [...this.byKey.values()];
  }
}
