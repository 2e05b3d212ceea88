/** Object names, generated name suffixes and uids: validated like the API server, generated deterministically. */
import { invalid } from './status';
import type { ResourceType } from './types';

const NAME_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** RFC 1123 subdomain, at most 253 characters; 422 Invalid otherwise. */
export function validateName(rt: ResourceType, name: unknown): void {
  if (typeof name !== 'string' || name === '') throw invalid(rt.kind, '', 'metadata.name', 'Required value: name or generateName is required');
  if (name.length > 253 || !NAME_RE.test(name)) {
    throw invalid(
      rt.kind,
      name,
      'metadata.name',
      `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    );
  }
}

/** The n-th uid: UUID-shaped, the same on every run. */
export function deterministicUid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** The n-th generateName suffix: 5 characters from the API server's alphabet, the same on every run. */
export function generatedNameSuffix(n: number): string {
  let x = n * 7919;
  let s = '';
  for (let i = 0; i < 5; i++) {
    s += SUFFIX_ALPHABET[x % SUFFIX_ALPHABET.length];
    x = Math.floor(x / SUFFIX_ALPHABET.length);
  }
  return s;
}
