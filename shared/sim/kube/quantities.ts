/**
 * Resource quantities are checked where the API server checks them: a value that is no quantity fails to decode
 * (400, "quantities must match the regular expression …"), a negative request or limit is 422. Checked in pods,
 * the pod templates of workloads, a Node's capacity and allocatable and a claim's requests, so nothing the
 * simulated controllers read later can hold one (the real server never serves one either).
 */
import { isQuantity, parseQuantityValue } from '../../core/model/quantity';
import { badRequest, invalid } from './status';
import type { Json, KubeObject, ResourceType } from './types';

const REGEX = "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const isMap = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The resource lists of an object, with their field paths. */
function resourceLists(rt: ResourceType, o: KubeObject): [string, unknown][] {
  const out: [string, unknown][] = [];
  const podSpec = (spec: unknown, at: string) => {
    if (!isMap(spec)) return;
    for (const field of ['containers', 'initContainers', 'ephemeralContainers']) {
      const list = spec[field];
      if (!Array.isArray(list)) continue;
      list.forEach((c: unknown, i) => {
        const res = isMap(c) && isMap(c.resources) ? c.resources : {};
        for (const kind of ['requests', 'limits']) out.push([`${at}.${field}[${i}].resources.${kind}`, res[kind]]);
      });
    }
    out.push([`${at}.overhead`, spec.overhead]);
    if (isMap(spec.resources)) for (const kind of ['requests', 'limits']) out.push([`${at}.resources.${kind}`, spec.resources[kind]]);
  };
  const spec = o.spec;
  if (rt.group === '' && rt.resource === 'pods') podSpec(spec, 'spec');
  else if (['deployments', 'replicasets', 'statefulsets', 'daemonsets', 'jobs'].includes(rt.resource))
    podSpec(isMap(spec) && isMap(spec.template) ? spec.template.spec : undefined, 'spec.template.spec');
  else if (rt.group === '' && rt.resource === 'nodes') out.push(['status.capacity', o.status?.capacity], ['status.allocatable', o.status?.allocatable]);
  else if (rt.group === '' && rt.resource === 'persistentvolumeclaims' && isMap(spec) && isMap(spec.resources))
    out.push(['spec.resources.requests', spec.resources.requests], ['spec.resources.limits', spec.resources.limits]);
  return out;
}

/** Throws the API server's answer to a quantity it would not accept. */
export function checkQuantities(rt: ResourceType, o: KubeObject): void {
  for (const [path, list] of resourceLists(rt, o)) {
    if (!isMap(list)) continue;
    for (const [name, value] of Object.entries(list)) {
      if (!isQuantity(value))
        throw badRequest(`${rt.kind} in version "${rt.version}" cannot be handled as a ${rt.kind}: quantities must match the regular expression ${REGEX}`);
      if (parseQuantityValue(value) < 0 && !path.startsWith('status'))
        throw invalid(
          rt.kind,
          String(o.metadata.name ?? ''),
          `${path}[${name}]`,
          `Invalid value: ${JSON.stringify(String(value))}: must be greater than or equal to 0`,
        );
    }
  }
}
