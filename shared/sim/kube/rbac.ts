/**
 * RBAC for nodewright's functions on the fake API server: their requests (an EKS token, `k8s-aws-v1.…`) are
 * allowed only what the ClusterRole in infra/kubernetes/rbac.yaml grants, and anything else is answered
 * 403 Forbidden with the API server's message — so a call the role does not cover fails in the simulator as it
 * would on EKS. Other clients (kubectl on `sim serve`, the simulator's own controllers) act as cluster admin.
 * Discovery paths (/api, /apis, /version, /openapi) are open to every authenticated user, as in Kubernetes.
 */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { statusBody } from './status';
import type { Json } from './types';

export interface RbacRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  /** When set, the rule covers these objects only (a list, a watch or a create names none: not covered). */
  resourceNames?: string[];
}

/** The ClusterRole's rules from a manifest (the first ClusterRole document). */
export function clusterRoleRules(file: string): RbacRule[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8')).map((d) => d.toJS() as { kind?: string; rules?: RbacRule[] });
  return docs.find((d) => d.kind === 'ClusterRole')?.rules ?? [];
}

export interface RbacRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization?: string;
}

/** The API group, resource (with `/subresource`), verb and namespace a request asks for; undefined for discovery. */
function requestAttributes(r: RbacRequest): { group: string; resource: string; verb: string; namespace?: string; name?: string } | undefined {
  const parts = r.path.split('/').filter(Boolean);
  let group: string;
  let rest: string[];
  if (parts[0] === 'api' && parts[1] === 'v1' && parts.length > 2) {
    group = '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length > 3) {
    group = parts[1];
    rest = parts.slice(3);
  } else return undefined;
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, sub] = rest;
  const watch = r.query.get('watch') === 'true' || r.query.get('watch') === '1';
  const method = r.method.toUpperCase();
  const verb =
    method === 'GET'
      ? watch
        ? 'watch'
        : name
          ? 'get'
          : 'list'
      : method === 'POST'
        ? 'create'
        : method === 'PUT'
          ? 'update'
          : method === 'PATCH'
            ? 'patch'
            : method === 'DELETE'
              ? name
                ? 'delete'
                : 'deletecollection'
              : method.toLowerCase();
  return { group, resource: sub ? `${resource}/${sub}` : resource, verb, ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) };
}

/** True for the functions' identity: a bearer EKS token. */
const isFunctionsIdentity = (authorization: string | undefined): boolean => /^Bearer k8s-aws-v1\./.test(authorization ?? '');

/** The 403 answer for a request the rules do not allow, or undefined when allowed. */
export function rbacDenial(rules: readonly RbacRule[], r: RbacRequest, user = 'nodewright'): { status: 403; body: Json } | undefined {
  if (!isFunctionsIdentity(r.authorization)) return undefined;
  const a = requestAttributes(r);
  if (!a) return undefined;
  const allowed = rules.some(
    (x) =>
      (x.apiGroups.includes(a.group) || x.apiGroups.includes('*')) &&
      (x.resources.includes(a.resource) || x.resources.includes('*')) &&
      (x.verbs.includes(a.verb) || x.verbs.includes('*')) &&
      (!x.resourceNames?.length || (a.name !== undefined && x.resourceNames.includes(a.name))),
  );
  if (allowed) return undefined;
  const [res, sub] = a.resource.split('/');
  const what = `${res}${sub ? `/${sub}` : ''}${a.name ? ` "${a.name}"` : ''}`;
  const scope = a.namespace ? `in the namespace "${a.namespace}"` : 'at the cluster scope';
  return {
    status: 403,
    body: statusBody(
      403,
      'Forbidden',
      `${what} is forbidden: User "${user}" cannot ${a.verb} resource "${res}"${sub ? ` (subresource "${sub}")` : ''} in API group "${a.group}" ${scope}`,
    ),
  };
}
