import { formatResource, parseResource } from './quantity';

/** Resource amounts in internal units: cpu millicores, memory/ephemeral-storage bytes, others counts. */
export type ResourceList = Record<string, number>;

export const Resource = {
  cpu: 'cpu',
  memory: 'memory',
  pods: 'pods',
  ephemeralStorage: 'ephemeral-storage',
  nvidiaGpu: 'nvidia.com/gpu',
  amdGpu: 'amd.com/gpu',
  awsNeuron: 'aws.amazon.com/neuron',
  awsNeuronCore: 'aws.amazon.com/neuroncore',
  efa: 'vpc.amazonaws.com/efa',
  privateIPv4Address: 'vpc.amazonaws.com/PrivateIPv4Address',
  habanaGaudi: 'habana.ai/gaudi',
} as const;

export function parseResourceList(raw: Record<string, string | number> | undefined | null): ResourceList {
  const out: ResourceList = {};
  if (!raw) return out;
  for (const [k, v] of Object.entries(raw)) out[k] = parseResource(k, v);
  return out;
}

export function formatResourceList(r: ResourceList): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(r)) out[k] = formatResource(k, v);
  return out;
}

/** In place: a += b. */
export function addInto(a: ResourceList, b: ResourceList): ResourceList {
  for (const k in b) a[k] = (a[k] ?? 0) + b[k];
  return a;
}

export function maxResources(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const k in b) out[k] = Math.max(out[k] ?? 0, b[k]);
  return out;
}
