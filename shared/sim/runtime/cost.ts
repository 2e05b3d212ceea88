/**
 * What a function's work costs in Lambda, as the simulator charges it: virtual time stops while code runs, so
 * without this model a function's CPU and its API round trips would take 0 s and nothing would run out of memory.
 * The charges come from counted work (requests, bytes, invocations), never from measured wall or CPU time, so a
 * run stays reproducible. docs/simulator.md ("Function time and memory") gives every figure, where it comes from
 * and the command that re-measures it.
 */

export const COST_MODEL = {
  /** One Kubernetes API request, Lambda in the cluster's VPC to EKS's endpoint: TLS on a kept-alive connection, API server + etcd. */
  kubeRoundTripMs: 25,
  /** API server encoding plus the network, per byte sent or received (≈ 50 MB/s). */
  kubeTransferNsPerByte: 20,
  /**
   * Client CPU per byte of a Kubernetes response or watch event (JSON parse + mapping), at 1 vCPU: the production
   * snapshot path measured 8–23 ns/byte (bench/snapshot-memory.ts), rounded up for Graviton and TLS.
   */
  parseCpuNsPerByte: 25,
  /** Handler CPU of one invocation at 1 vCPU (middy, Powertools, the use case's own work, the log lines). */
  invocationCpuMs: 50,
  /** One AWS API call (the simulated AWS answers at once); by command where it is known to be slower. */
  awsRoundTripMs: 30,
  awsCallMs: {
    CreateFleetCommand: 2000,
    DescribeInstancesCommand: 150,
    DescribeInstanceTypesCommand: 300,
    DescribeSubnetsCommand: 100,
    DescribeSecurityGroupsCommand: 100,
    DescribeImagesCommand: 200,
    DescribeLaunchTemplatesCommand: 100,
    TerminateInstancesCommand: 200,
    RebootInstancesCommand: 200,
    StopInstancesCommand: 200,
    StartInstancesCommand: 200,
    StartExecutionCommand: 50,
  } as Record<string, number>,
  /**
   * Memory of a sandbox after INIT, by function (`default` for the rest): each deployed bundle (`npm run package`)
   * required in a fresh `node` process measured 56–75 MB resident (controller 65 MB), plus 20 MB for Lambda's
   * runtime client and what a warm sandbox keeps (caches, the built instance types).
   */
  baselineMb: { default: 95, controller: 85 } as Record<string, number>,
  /**
   * Heap per raw byte of what the function holds (the latest listing of each collection; objects read by name;
   * the controller's watched objects). The snapshot path (bench/snapshot-memory.ts) peaked at 0.47–0.92 × the
   * bytes read from 10,000 pods on (GC slack included): 0.5 here, with the page being parsed on top. The
   * controller keeps a compact model: 134–144 MiB at 5,000 nodes × 10 pods against 102 MiB at 500 (issue #28).
   */
  retainedPerByte: { default: 0.5, controller: 0.15 } as Record<string, number>,
  /** Heap while one response is parsed, per raw byte of it (the text, the parsed JSON, before mapping). */
  transientPerByte: 3,
} as const;

/** What Lambda reports when a function's sandbox exceeds its memory size; `name` is the error Step Functions sees. */
export class FunctionOutOfMemoryError extends Error {
  override readonly name = 'Runtime.OutOfMemory' as const;
}

/** Lambda's CPU share for a memory size: 1,769 MB is one vCPU, proportionally less below; Node uses one thread, so at most 1. */
export function cpuShare(memoryMb: number): number {
  return Math.min(1, Math.max(memoryMb, 1) / 1769);
}

/** Milliseconds of a function of `memoryMb` spent on `ns1vcpu` nanoseconds of single-threaded CPU at one vCPU. */
export function cpuMs(ns1vcpu: number, memoryMb: number): number {
  return ns1vcpu / 1e6 / cpuShare(memoryMb);
}

/** The time one AWS call takes (round trip and service time). */
export function awsCallMs(command: string): number {
  return COST_MODEL.awsCallMs[command] ?? COST_MODEL.awsRoundTripMs;
}

export function baselineMb(functionKey: string): number {
  return COST_MODEL.baselineMb[functionKey] ?? COST_MODEL.baselineMb.default;
}

export function retainedPerByte(functionKey: string): number {
  return COST_MODEL.retainedPerByte[functionKey] ?? COST_MODEL.retainedPerByte.default;
}

/** A collection (or object) a response belongs to: the path and its selectors, without paging and watch parameters. */
export function heldKey(method: string, url: string): string | undefined {
  if (method !== 'GET') return undefined;
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  const keep = ['labelSelector', 'fieldSelector'].filter((k) => params.has(k)).map((k) => `${k}=${params.get(k)}`);
  return keep.length ? `${url.slice(0, q)}?${keep.join('&')}` : url.slice(0, q);
}

/** Whether the request continues a paged LIST (its page adds to the listing) rather than starting one. */
export function continuesListing(url: string): boolean {
  return /[?&]continue=[^&]/.test(url);
}

/** Whether the request is a WATCH (its answer is a stream of events). */
export function isWatch(url: string): boolean {
  return /[?&]watch=(true|1)(&|$)/.test(url);
}

/** Whether the request is a LIST of one object that starts no paging: it asks for the collection's resourceVersion. */
export function isProbe(url: string): boolean {
  return /[?&]limit=1(&|$)/.test(url) && !continuesListing(url);
}

/** Whether the request is a paged LIST of a collection (the production code lists with `limit`). */
export function isListing(url: string): boolean {
  return /[?&](limit|continue)=/.test(url);
}
