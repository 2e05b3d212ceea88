/** Kubernetes `Status` error bodies, and the error class the store and handler throw. */
import type { Json } from './types';

export type StatusReason =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'TooManyRequests'
  | 'Timeout'
  | 'Forbidden'
  | 'MethodNotAllowed'
  | 'Unauthorized'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'NotAcceptable';

export class KubeApiStatusError extends Error {
  override readonly name = 'KubeApiStatusError' as const;
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: Json,
  ) {
    super(message);
  }
  toStatus(): Json {
    return statusBody(this.code, this.reason, this.message, this.details);
  }
}

export function statusBody(code: number, reason: StatusReason | 'Success' | undefined, message: string, details?: Json): Json {
  const failure = code >= 300;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: failure ? 'Failure' : 'Success',
    ...(message ? { message } : {}),
    ...(failure && reason ? { reason } : {}),
    ...(details ? { details } : {}),
    code,
  };
}

const qualified = (group: string, resource: string): string => (group ? `${resource}.${group}` : resource);

export const notFound = (group: string, resource: string, name: string): KubeApiStatusError =>
  new KubeApiStatusError(404, 'NotFound', `${qualified(group, resource)} "${name}" not found`, { name, group, kind: resource });

export const alreadyExists = (group: string, resource: string, name: string): KubeApiStatusError =>
  new KubeApiStatusError(409, 'AlreadyExists', `${qualified(group, resource)} "${name}" already exists`, { name, group, kind: resource });

export const conflict = (group: string, resource: string, name: string, why: string): KubeApiStatusError =>
  new KubeApiStatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(group, resource)} "${name}": ${why}`, { name, group, kind: resource });

export const invalid = (kind: string, name: string, field: string, problem: string): KubeApiStatusError =>
  new KubeApiStatusError(422, 'Invalid', `${kind} "${name}" is invalid: ${field}: ${problem}`, {
    name,
    kind,
    causes: [{ reason: 'FieldValueInvalid', message: problem, field }],
  });

export const badRequest = (message: string): KubeApiStatusError => new KubeApiStatusError(400, 'BadRequest', message);
