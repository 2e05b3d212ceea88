/**
 * A minimal OpenAPI v3 index: one PATCH operation per kind that declares the `fieldValidation` query
 * parameter. kubectl apply then leaves validation to the server (fieldValidation=Strict) instead of
 * downloading the protobuf OpenAPI v2 document, so `kubectl apply -f` works without --validate=false.
 * Custom resources publish their CRD's openAPIV3Schema under the name a real API server gives it
 * (`sh.karpenter.v1.NodePool`, with `x-kubernetes-group-version-kind`), so `kubectl explain nodepool.spec` works;
 * built-in kinds publish none (kubectl falls back to its built-in types, or to merge patch).
 */
import type { ResourceRegistry } from './resources';
import { apiVersionOf, type Json, type ResourceType } from './types';

const gvPath = (t: Pick<ResourceType, 'group' | 'version'>): string => (t.group ? `apis/${t.group}/${t.version}` : `api/${t.version}`);

export function openApiV3Root(registry: ResourceRegistry): Json {
  const paths: Json = {};
  for (const t of registry.all()) paths[gvPath(t)] = { serverRelativeURL: `/openapi/v3/${gvPath(t)}?hash=${t.version}` };
  return { paths };
}

export function openApiV3GroupVersion(registry: ResourceRegistry, path: string): Json | undefined {
  const types = registry.all().filter((t) => gvPath(t) === path);
  if (types.length === 0) return undefined;
  const paths: Json = {};
  for (const t of types) {
    const base = `/${gvPath(t)}${t.namespaced ? '/namespaces/{namespace}' : ''}/${t.resource}/{name}`;
    paths[base] = {
      patch: {
        operationId: `patch${t.kind}`,
        'x-kubernetes-action': 'patch',
        'x-kubernetes-group-version-kind': { group: t.group, version: t.version, kind: t.kind },
        parameters: [{ name: 'fieldValidation', in: 'query', schema: { type: 'string', uniqueItems: true } }],
        responses: { 200: { description: 'OK' } },
      },
    };
  }
  const schemas: Json = {};
  for (const t of types) {
    if (!t.schema) continue;
    const name = `${t.group.split('.').reverse().join('.')}.${t.version}.${t.kind}`;
    schemas[name] = { ...t.schema, 'x-kubernetes-group-version-kind': [{ group: t.group, version: t.version, kind: t.kind }] };
  }
  return { openapi: '3.0.0', info: { title: 'Kubernetes', version: apiVersionOf(types[0]) }, paths, components: { schemas } };
}
