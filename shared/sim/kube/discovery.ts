/** Discovery documents (/version, /api, /api/v1, /apis, /apis/<group>[/<version>]) in the legacy JSON form kubectl falls back to. */
import type { ResourceRegistry } from './resources';
import { apiVersionOf, type Json } from './types';

export const SERVER_VERSION = {
  major: '1',
  minor: '31',
  gitVersion: 'v1.31.0-nodewright-sim',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2024-08-13T00:00:00Z',
  goVersion: 'go1.22.5',
  compiler: 'gc',
  platform: 'linux/amd64',
} as const;

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update'];

const SUBRESOURCE_KINDS: Record<string, { group: string; version: string; kind: string; verbs: string[] }> = {
  eviction: { group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] },
  binding: { group: '', version: 'v1', kind: 'Binding', verbs: ['create'] },
  scale: { group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] },
};

export function apiResourceList(registry: ResourceRegistry, group: string, version: string): Json | undefined {
  const types = registry
    .all()
    .filter((t) => t.group === group && t.version === version)
    .sort((a, b) => a.resource.localeCompare(b.resource));
  if (types.length === 0) return undefined;
  const resources: Json[] = [];
  for (const t of types) {
    resources.push({
      name: t.resource,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: VERBS,
      ...(t.shortNames ? { shortNames: t.shortNames } : {}),
      ...(t.categories ? { categories: t.categories } : {}),
    });
    for (const sub of t.subresources) {
      const s = SUBRESOURCE_KINDS[sub];
      resources.push(
        s
          ? { name: `${t.resource}/${sub}`, singularName: '', namespaced: t.namespaced, group: s.group, version: s.version, kind: s.kind, verbs: s.verbs }
          : { name: `${t.resource}/${sub}`, singularName: '', namespaced: t.namespaced, kind: t.kind, verbs: ['get', 'patch', 'update'] },
      );
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf({ group, version }), resources };
}

/**
 * The groups with resources of their own. A group advertised without any (autoscaling/v1 for the Scale kind of
 * scale subresources) makes `kubectl api-resources` fail ("received empty response"); `kubectl scale` needs only
 * the subresource entry.
 */
function groups(registry: ResourceRegistry): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of registry.all()) {
    if (!t.group) continue;
    const vs = out.get(t.group) ?? [];
    if (!vs.includes(t.version)) vs.push(t.version);
    out.set(t.group, vs);
  }
  return out;
}

const apiGroup = (name: string, versions: string[]): Json => ({
  name,
  versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
  preferredVersion: { groupVersion: `${name}/${versions[0]}`, version: versions[0] },
});

export function apiGroupList(registry: ResourceRegistry): Json {
  const gs = [...groups(registry).entries()].sort(([a], [b]) => a.localeCompare(b));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: gs.map(([name, vs]) => apiGroup(name, vs)) };
}

export function apiGroupDoc(registry: ResourceRegistry, group: string): Json | undefined {
  const vs = groups(registry).get(group);
  return vs ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(group, vs) } : undefined;
}

export const apiVersions = (serverAddress: string): Json => ({
  kind: 'APIVersions',
  versions: ['v1'],
  serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
});
