/**
 * How every AWS SDK v3 client of the functions is configured. The SDK's Node handler has no request timeout
 * by default (requestTimeout 0), so one request to an endpoint that never answers would hold a function until
 * its own timeout; with `throwOnRequestTimeout` a slow request fails as `TimeoutError`, which the SDK's
 * standard retry strategy retries (3 attempts, full-jitter backoff). Idempotency makes the repeat safe:
 * CreateFleet carries the NodeClaim name as ClientToken, StartExecution the execution name, DynamoDB writes
 * are conditional.
 */
export interface AwsClientOptions {
  /** Longest a request may take (ms); default 15 s. A Lambda Invoke (RequestResponse) must allow the callee's timeout. */
  requestTimeoutMs?: number;
}

const DEFAULT_AWS_REQUEST_TIMEOUT_MS = 15_000;
const AWS_CONNECTION_TIMEOUT_MS = 3_000;

export function awsClientConfig(region: string, opts: AwsClientOptions = {}) {
  return {
    region,
    requestHandler: {
      connectionTimeout: AWS_CONNECTION_TIMEOUT_MS,
      requestTimeout: opts.requestTimeoutMs ?? DEFAULT_AWS_REQUEST_TIMEOUT_MS,
      throwOnRequestTimeout: true,
    },
  };
}
