/** The PATCH kinds the fake API server accepts: JSON merge patch (RFC 7386), strategic merge (treated as merge), JSON patch (RFC 6902). */
import { KubeApiStatusError, badRequest } from './status';
import type { Json } from './types';

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** RFC 7386: objects merge recursively, null deletes, everything else (arrays included) replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return structuredClone(patch);
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

type Op = { op: string; path: string; value?: unknown; from?: string };

const unescape = (s: string): string => s.replace(/~1/g, '/').replace(/~0/g, '~');

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw badRequest(`invalid JSON pointer "${pointer}"`);
  return pointer.slice(1).split('/').map(unescape);
}

function parentOf(doc: unknown, tokens: string[], pointer: string): { parent: Json | unknown[]; key: string } {
  let cur: unknown = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw new KubeApiStatusError(422, 'Invalid', `the JSON patch path "${pointer}" does not exist`);
  }
  if (!Array.isArray(cur) && !isObject(cur)) throw new KubeApiStatusError(422, 'Invalid', `the JSON patch path "${pointer}" does not exist`);
  return { parent: cur, key: tokens[tokens.length - 1] };
}

function getAt(doc: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return doc;
  const { parent, key } = parentOf(doc, tokens, pointer);
  const v = Array.isArray(parent) ? parent[Number(key)] : parent[key];
  if (v === undefined) throw new KubeApiStatusError(422, 'Invalid', `the JSON patch path "${pointer}" does not exist`);
  return v;
}

function remove(doc: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  const { parent, key } = parentOf(doc, tokens, pointer);
  const value = getAt(doc, pointer);
  if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete parent[key];
  return value;
}

function add(doc: unknown, pointer: string, value: unknown, replace: boolean): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return structuredClone(value);
  const { parent, key } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) {
    const idx = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(idx) || idx < 0 || idx > parent.length)
      throw new KubeApiStatusError(422, 'Invalid', `the JSON patch index in "${pointer}" is out of range`);
    if (replace) parent[idx] = structuredClone(value);
    else parent.splice(idx, 0, structuredClone(value));
  } else {
    if (replace && !(key in parent)) throw new KubeApiStatusError(422, 'Invalid', `the JSON patch path "${pointer}" does not exist`);
    parent[key] = structuredClone(value);
  }
  return doc;
}

/** RFC 6902 on a copy of `doc`; a failed `test` or a missing path is 422, as the API server answers. */
export function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('a JSON patch must be an array of operations');
  let out = structuredClone(doc);
  for (const raw of ops as Op[]) {
    switch (raw.op) {
      case 'add':
        out = add(out, raw.path, raw.value, false);
        break;
      case 'replace':
        out = add(out, raw.path, raw.value, true);
        break;
      case 'remove':
        remove(out, raw.path);
        break;
      case 'move': {
        const v = remove(out, raw.from ?? '');
        out = add(out, raw.path, v, false);
        break;
      }
      case 'copy':
        out = add(out, raw.path, getAt(out, raw.from ?? ''), false);
        break;
      case 'test':
        if (JSON.stringify(getAt(out, raw.path)) !== JSON.stringify(raw.value))
          throw new KubeApiStatusError(422, 'Invalid', `the JSON patch test at "${raw.path}" failed`);
        break;
      default:
        throw badRequest(`unknown JSON patch operation "${String(raw.op)}"`);
    }
  }
  return out;
}

const PatchType = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  json: 'application/json-patch+json',
} as const;

export function applyPatch(contentType: string | undefined, doc: unknown, patch: unknown): unknown {
  const ct = (contentType ?? '').split(';')[0].trim();
  if (ct === PatchType.merge || ct === PatchType.strategic) {
    if (!isObject(patch)) throw badRequest('a merge patch must be a JSON object');
    return mergePatch(doc, patch);
  }
  if (ct === PatchType.json) return jsonPatch(doc, patch);
  throw new KubeApiStatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${Object.values(PatchType).join(', ')}`,
  );
}
