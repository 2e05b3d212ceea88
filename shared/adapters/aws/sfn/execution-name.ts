import { createHash } from 'node:crypto';

/** Step Functions execution names: 1–80 characters; we keep to the ASCII set CloudWatch also accepts. */
const MAX_EXECUTION_NAME_LENGTH = 80;
const ALLOWED = /^[A-Za-z0-9_-]+$/;

class ExecutionNameInvalidError extends Error {
  override readonly name = 'ExecutionNameInvalidError' as const;
}

/**
 * Makes `name` a valid execution name, deterministically: a valid name is kept as is; otherwise disallowed
 * characters become '-', and the result is cut to fit and suffixed with 8 hex characters of the SHA-256 of
 * the original, so two different inputs do not collide after sanitizing.
 */
export function sanitizeExecutionName(name: string): string {
  if (typeof name !== 'string' || name.length === 0) throw new ExecutionNameInvalidError('execution name must be a non-empty string');
  if (name.length <= MAX_EXECUTION_NAME_LENGTH && ALLOWED.test(name)) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  const cleaned = name.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  const prefix = cleaned.slice(0, MAX_EXECUTION_NAME_LENGTH - hash.length - 1).replace(/-+$/, '');
  return prefix ? `${prefix}-${hash}` : hash;
}
