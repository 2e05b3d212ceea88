/**
 * Named domain errors. `name` is a literal because Step Functions Retry/Catch match on it,
 * and each class has a guard so callers never compare strings by hand.
 */
abstract class NamedError extends Error {
  abstract override readonly name: string;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export class InsufficientCapacityError extends NamedError {
  override readonly name = 'InsufficientCapacityError' as const;
  constructor(
    message: string,
    readonly offerings: { instanceType: string; zone: string; capacityType: string }[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
export class NodeClaimNotFoundError extends NamedError {
  override readonly name = 'NodeClaimNotFoundError' as const;
  /** The cloud still reports the instance, terminated: gone for certain, not merely unknown to an eventually consistent read. */
  readonly terminated: boolean;
  constructor(message: string, options?: { cause?: unknown; terminated?: boolean }) {
    super(message, options);
    this.terminated = options?.terminated ?? false;
  }
}
export class NodeClassNotReadyError extends NamedError {
  override readonly name = 'NodeClassNotReadyError' as const;
}
export class CloudProviderThrottledError extends NamedError {
  override readonly name = 'CloudProviderThrottledError' as const;
}
export class CloudProviderUnauthorizedError extends NamedError {
  override readonly name = 'CloudProviderUnauthorizedError' as const;
}
export class InstanceNotOwnedError extends NamedError {
  override readonly name = 'InstanceNotOwnedError' as const;
}
export class ManifestValidationError extends NamedError {
  override readonly name = 'ManifestValidationError' as const;
  constructor(
    readonly file: string,
    readonly documentIndex: number,
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${file}: document ${documentIndex + 1}: ${path ? path + ': ' : ''}${problem}`);
  }
}
export class ExecutionInputInvalidError extends NamedError {
  override readonly name = 'ExecutionInputInvalidError' as const;
}
export class EventMalformedError extends NamedError {
  override readonly name = 'EventMalformedError' as const;
}
export class DeadlineExceededError extends NamedError {
  override readonly name = 'DeadlineExceededError' as const;
}
/** A NodeClaim exists under a name nodewright meant to create, but another actor created it: never adopted. */
export class NodeClaimConflictError extends NamedError {
  override readonly name = 'NodeClaimConflictError' as const;
}

export const isInsufficientCapacityError = (e: unknown): e is InsufficientCapacityError => e instanceof Error && e.name === 'InsufficientCapacityError';
export const isNodeClaimNotFoundError = (e: unknown): e is NodeClaimNotFoundError => e instanceof Error && e.name === 'NodeClaimNotFoundError';
export const isNodeClassNotReadyError = (e: unknown): e is NodeClassNotReadyError => e instanceof Error && e.name === 'NodeClassNotReadyError';
export const isThrottledError = (e: unknown): e is CloudProviderThrottledError => e instanceof Error && e.name === 'CloudProviderThrottledError';
export const isInstanceNotOwnedError = (e: unknown): e is InstanceNotOwnedError => e instanceof Error && e.name === 'InstanceNotOwnedError';
export const isManifestValidationError = (e: unknown): e is ManifestValidationError => e instanceof Error && e.name === 'ManifestValidationError';

/** The Kubernetes API answered 429/5xx or could not be reached, after the client's own retries: try again later. */
export class KubernetesApiUnavailableError extends NamedError {
  override readonly name = 'KubernetesApiUnavailableError' as const;
}

/** The state table throttled a request after the SDK's own retries (DynamoDB on-demand burst limits): try again later. */
export class StateStoreThrottledError extends NamedError {
  override readonly name = 'StateStoreThrottledError' as const;
}

/** An error's message for a log line (anything thrown, not only Errors). */
export const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));
