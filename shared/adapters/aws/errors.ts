import { CloudProviderThrottledError, CloudProviderUnauthorizedError, InsufficientCapacityError, NodeClaimNotFoundError } from '../../core/errors';

/** The spot service-linked role is missing: no spot launch can succeed, so every spot offering is marked. */
export const SPOT_ROLE_MISSING = 'AuthFailure.ServiceLinkedRoleCreationNotPermitted';

/** EC2 error codes that mean "this offering has no capacity now" and feed the ICE cache (docs/karpenter-reference.md §3.4). */
export const IceErrorCodes: ReadonlySet<string> = new Set([
  'InsufficientInstanceCapacity',
  'MaxSpotInstanceCountExceeded',
  'VcpuLimitExceeded',
  'UnfulfillableCapacity',
  'Unsupported',
  'InsufficientFreeAddressesInSubnet',
  'MaxFleetCountExceeded',
  'ReservationCapacityExceeded',
  'InsufficientCapacity',
  'SpotMaxPriceTooLow',
  SPOT_ROLE_MISSING,
]);

const ThrottleErrorCodes: ReadonlySet<string> = new Set([
  'RequestLimitExceeded',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'ProvisionedThroughputExceededException',
  'RequestThrottled',
]);

const UnauthorizedErrorCodes: ReadonlySet<string> = new Set([
  'UnauthorizedOperation',
  'AccessDenied',
  'AccessDeniedException',
  'AuthFailure',
  'UnrecognizedClientException',
  'ExpiredToken',
  'ExpiredTokenException',
]);

const NotFoundErrorCodes: ReadonlySet<string> = new Set(['InvalidInstanceID.NotFound', 'InvalidInstanceID.Malformed']);

export const LaunchTemplateNotFoundCodes: ReadonlySet<string> = new Set([
  'InvalidLaunchTemplateName.NotFoundException',
  'InvalidLaunchTemplateId.NotFound',
  'InvalidLaunchTemplateId.VersionNotFound',
  'LaunchTemplateNotFound',
]);

/** The error code of an SDK v3 service error (its `name`), or undefined for non-service errors. */
export function awsErrorCode(e: unknown): string | undefined {
  if (!(e instanceof Error)) return undefined;
  const withCode = e as Error & { Code?: string; code?: string };
  return withCode.Code ?? withCode.code ?? e.name;
}

/** `Name: first line of the message`, for log lines and error messages that name a failed call's cause. */
export function errorText(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message.split('\n')[0]}` : String(e);
}

/**
 * Maps an AWS SDK error to a named core error (cause kept). Errors with no core meaning are returned
 * unchanged so the original code stays visible.
 */
export function mapAwsError(e: unknown, operation: string): unknown {
  const code = awsErrorCode(e);
  if (!code) return e;
  const message = `${operation}: ${code}: ${e instanceof Error ? e.message : String(e)}`;
  if (IceErrorCodes.has(code)) return new InsufficientCapacityError(message, [], { cause: e });
  if (ThrottleErrorCodes.has(code)) return new CloudProviderThrottledError(message, { cause: e });
  if (UnauthorizedErrorCodes.has(code)) return new CloudProviderUnauthorizedError(message, { cause: e });
  if (NotFoundErrorCodes.has(code)) return new NodeClaimNotFoundError(message, { cause: e });
  return e;
}
