/**
 * Fault injection (scenario `faults:`): for a window of virtual time, a share of the requests to one target
 * fail the way the real service fails. Deterministic: each fault draws from its own seeded sequence.
 *
 * | target | kinds | what the caller sees |
 * |---|---|---|
 * | `kube-api` | error, throttle, timeout, hang | HTTP 500 / 429 from the API server (watches too); timeout: 504 after the API server's 60 s request timeout; hang: no answer at all — the client's own request timeout must fire (a watch request that hangs is held until the client gives up too) |
 * | `ec2`, `sfn`, `dynamodb`, `lambda-invoke`, `ssm`, `eks`, `pricing`, `iam` | error, throttle, timeout, hang | the SDK's service exception (InternalError / RequestLimitExceeded, ServiceUnavailable / ThrottlingException, InternalServerError / ProvisionedThroughputExceededException, …), each attempt of the SDK's own retry strategy drawing again; hang: no answer until the client's request timeout (`TimeoutError`); timeout: the same after the service applied the request (the retry repeats a write that happened) — aws/sdk-behaviour.ts |
 * | `ec2` | lag | EC2's eventual consistency: an instance launched in the window stays invisible to DescribeInstances (listed or by id: `InvalidInstanceID.NotFound`) and TerminateInstances for `lag` seconds (default 60) after CreateFleet returned it |
 * | `sqs` | duplicate | an interruption event delivered again, 1 s later, under another SQS message id |
 * | `lambda:<functionKey>`, `task:<StateName>` | crash, timeout | the invocation dies before its handler returns (Runtime.ExitError), or runs past its timeout (Sandbox.Timedout) |
 *
 * While a request hangs, virtual time moves on (the simulator stops counting it as in flight), so timeouts fire
 * when they would in the world.
 */
import { hashUnit } from './hash';

type FaultTarget = string;
export type FaultKind = 'error' | 'throttle' | 'crash' | 'timeout' | 'hang' | 'duplicate' | 'lag';

export interface FaultSpec {
  /** Seconds since the start. */
  at: number;
  /** Seconds. */
  for: number;
  target: FaultTarget;
  kind: FaultKind;
  /** Share of the requests that fail, 0..1 (default 1); for `lag`, the share of launches that lag. */
  rate?: number;
  /** `lag` only: seconds a new instance stays invisible (default 60). */
  lag?: number;
}

/** EC2's DescribeInstances lag a `lag` fault gives by default (what the issue measured against). */
const DEFAULT_LAG_SECONDS = 60;

class FaultSpecInvalidError extends Error {
  override readonly name = 'FaultSpecInvalidError' as const;
}

const SERVICE_TARGETS = new Set(['kube-api', 'ec2', 'sfn', 'dynamodb', 'lambda-invoke', 'ssm', 'eks', 'pricing', 'iam', 'sqs']);

export function validateFault(f: FaultSpec, where: string): void {
  const invocation = /^(lambda|task):[A-Za-z][A-Za-z0-9]*$/.test(f.target);
  if (!SERVICE_TARGETS.has(f.target) && !invocation)
    throw new FaultSpecInvalidError(
      `${where}: target must be kube-api, ec2, sfn, dynamodb, lambda-invoke, ssm, eks, pricing, iam, sqs, lambda:<function> or task:<State>; got ${JSON.stringify(f.target)}`,
    );
  const kinds = invocation
    ? ['crash', 'timeout']
    : f.target === 'sqs'
      ? ['duplicate']
      : f.target === 'ec2'
        ? ['error', 'throttle', 'timeout', 'hang', 'lag']
        : ['error', 'throttle', 'timeout', 'hang'];
  if (!kinds.includes(f.kind))
    throw new FaultSpecInvalidError(`${where}: kind for ${f.target} must be one of ${kinds.join(', ')}; got ${JSON.stringify(f.kind)}`);
  if (f.rate !== undefined && !(f.rate > 0 && f.rate <= 1)) throw new FaultSpecInvalidError(`${where}: rate must be in (0, 1]; got ${f.rate}`);
  if (f.lag !== undefined && f.kind !== 'lag') throw new FaultSpecInvalidError(`${where}: lag is only for kind lag; got kind ${JSON.stringify(f.kind)}`);
  if (f.lag !== undefined && !(f.lag > 0)) throw new FaultSpecInvalidError(`${where}: lag must be a positive duration; got ${f.lag}`);
}

/** `task:LaunchNodeClaim` → the function key `launchNodeClaim` (one Task state = one function, same name). */
const invocationKey = (target: string): string | undefined => {
  const m = /^(lambda|task):(.+)$/.exec(target);
  if (!m) return undefined;
  return m[1] === 'task' ? m[2][0].toLowerCase() + m[2].slice(1) : m[2];
};

export class FaultPlan {
  private readonly draws: number[];
  /** While set (a scenario's `fleet` being seeded before t=0's first function), nothing is injected. */
  private paused = false;
  readonly injected: { t: number; target: string; kind: FaultKind }[] = [];

  constructor(
    private readonly faults: FaultSpec[],
    private readonly seed: number,
    private readonly elapsedSeconds: () => number,
  ) {
    this.draws = faults.map(() => 0);
  }

  /** The kind to inject for one request to `target` now, or undefined (`lag` faults are asked with lagSeconds). */
  check(target: string): FaultKind | undefined {
    return this.pick(target, (f) => f.kind !== 'lag')?.kind;
  }

  /** Seconds an instance `target` creates now stays invisible to its Describe calls (0: none). */
  lagSeconds(target: string): number {
    const f = this.pick(target, (x) => x.kind === 'lag');
    return f ? (f.lag ?? DEFAULT_LAG_SECONDS) : 0;
  }

  /** Runs `fn` with no fault injected (the world's own set-up, not a request of nodewright's). */
  async without<T>(fn: () => Promise<T>): Promise<T> {
    this.paused = true;
    try {
      return await fn();
    } finally {
      this.paused = false;
    }
  }

  private pick(target: string, applies: (f: FaultSpec) => boolean): FaultSpec | undefined {
    if (this.paused) return undefined;
    const t = this.elapsedSeconds();
    for (const [i, f] of this.faults.entries()) {
      if (!applies(f) || t < f.at || t >= f.at + f.for) continue;
      const key = invocationKey(f.target);
      if (key !== undefined ? target !== `lambda:${key}` : f.target !== target) continue;
      const rate = f.rate ?? 1;
      if (rate < 1) {
        if (hashUnit(this.seed, i, this.draws[i]++) >= rate) continue;
      }
      this.injected.push({ t, target, kind: f.kind });
      return f;
    }
    return undefined;
  }

  get empty(): boolean {
    return this.faults.length === 0;
  }
}

/** The Kubernetes API server's API-server request timeout (kube-apiserver --request-timeout default). */
const API_SERVER_REQUEST_TIMEOUT_MS = 60_000;

/** What the fake API server answers for an injected kube-api fault. */
export function kubeApiFault(kind: FaultKind | undefined): { status?: number; delayMs?: number } | undefined {
  switch (kind) {
    case 'error':
      return { status: 500 };
    case 'throttle':
      return { status: 429 };
    case 'timeout':
      return { status: 504, delayMs: API_SERVER_REQUEST_TIMEOUT_MS };
    case 'hang':
      return { delayMs: Infinity };
    default:
      return undefined;
  }
}

/** What an AWS service answers for an injected fault, as the SDK surfaces it. */
export function awsFault(service: string, kind: FaultKind): Error {
  const names: Record<string, [string, string]> = {
    ec2: ['InternalError', 'RequestLimitExceeded'],
    sfn: ['ServiceUnavailable', 'ThrottlingException'],
    dynamodb: ['InternalServerError', 'ProvisionedThroughputExceededException'],
    'lambda-invoke': ['ServiceException', 'TooManyRequestsException'],
    ssm: ['InternalServerError', 'ThrottlingException'],
    eks: ['ServerException', 'ThrottlingException'],
    pricing: ['InternalErrorException', 'ThrottlingException'],
    iam: ['ServiceFailureException', 'Throttling'],
  };
  const [error, throttle] = names[service] ?? ['InternalError', 'ThrottlingException'];
  const name = kind === 'throttle' ? throttle : error;
  return Object.assign(new Error(`injected fault: ${service} ${kind}`), {
    name,
    $fault: kind === 'throttle' ? 'client' : 'server',
    $metadata: { httpStatusCode: kind === 'throttle' ? 400 : 500 },
  });
}
