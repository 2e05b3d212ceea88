/** A GET of one NodeClaim that tells "missing" from "stored but unreadable by this version". */
import { ManifestValidationError } from '../../core/errors';
import { nodeClaimFromKube } from '../../core/model/from-kube';
import type { NodeClaimRead } from '../../core/ports/cluster-client';

type Json = Record<string, unknown>;

/** A NodeClaim as a GET by name found it (raw: undefined when the API server has none). */
export function nodeClaimRead(raw: Json | undefined): NodeClaimRead {
  if (!raw) return { found: false };
  try {
    return { found: true, claim: nodeClaimFromKube(raw) };
  } catch (err) {
    const unreadable =
      err instanceof ManifestValidationError ? `${err.path ? `${err.path}: ` : ''}${err.problem}` : err instanceof Error ? err.message : String(err);
    return { found: true, unreadable };
  }
}
