/** client-node returns typed model instances (Date objects, renamed fields); the core mappers read plain API JSON. */
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';

type Json = Record<string, unknown>;

/** Serializes a typed client-node model back to the JSON the API server sent (e.g. type "V1Pod"). */
export function toPlain(obj: unknown, type: string): Json {
  return ObjectSerializer.serialize(obj, type, '') as Json;
}

/** The `continue` token of a list, whichever form the client returned it in. */
export function continueOf(list: { metadata?: unknown }): string | undefined {
  const m = (list.metadata ?? {}) as { _continue?: string; continue?: string };
  return m._continue || m.continue || undefined;
}
