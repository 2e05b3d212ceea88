/** Label selectors (`app=web,tier in (a,b),!canary`) and field selectors (`spec.nodeName=,status.phase!=Failed`). */
import { badRequest } from './status';
import type { Json, KubeObject } from './types';

type LabelRequirement =
  { key: string; op: 'eq' | 'neq'; value: string } | { key: string; op: 'in' | 'notin'; values: string[] } | { key: string; op: 'exists' | 'notexists' };

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p.length > 0);
}

const SET_RE = /^([^\s!=]+)\s+(in|notin)\s*\(([^)]*)\)$/;
const CMP_RE = /^([^\s!=]+)\s*(==|=|!=)\s*(.*)$/;
const KEY_RE = /^[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?$/;

export function parseLabelSelector(selector: string): LabelRequirement[] {
  return splitTopLevel(selector).map((part) => {
    let m = SET_RE.exec(part);
    if (m)
      return {
        key: m[1],
        op: m[2] as 'in' | 'notin',
        values: m[3]
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean),
      };
    m = CMP_RE.exec(part);
    if (m) return { key: m[1], op: m[2] === '!=' ? 'neq' : 'eq', value: m[3].trim() };
    if (part.startsWith('!') && KEY_RE.test(part.slice(1).trim())) return { key: part.slice(1).trim(), op: 'notexists' };
    if (KEY_RE.test(part)) return { key: part, op: 'exists' };
    throw badRequest(`unable to parse requirement: invalid label selector "${selector}" at "${part}"`);
  });
}

export function matchesLabelSelector(labels: Record<string, string> | undefined, reqs: LabelRequirement[]): boolean {
  const l = labels ?? {};
  return reqs.every((r) => {
    const has = Object.prototype.hasOwnProperty.call(l, r.key);
    switch (r.op) {
      case 'eq':
        return has && l[r.key] === r.value;
      case 'neq':
        return !has || l[r.key] !== r.value;
      case 'in':
        return has && r.values.includes(l[r.key]);
      case 'notin':
        return !has || !r.values.includes(l[r.key]);
      case 'exists':
        return has;
      case 'notexists':
        return !has;
    }
  });
}

/** A structured `LabelSelector` (matchLabels + matchExpressions), as in PDBs and Deployments. */
export function matchesStructuredSelector(labels: Record<string, string> | undefined, selector: Json | undefined): boolean {
  if (!selector) return false;
  const l = labels ?? {};
  const matchLabels = (selector.matchLabels ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(matchLabels)) if (l[k] !== v) return false;
  const exprs = (selector.matchExpressions ?? []) as { key: string; operator: string; values?: string[] }[];
  for (const e of exprs) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const values = e.values ?? [];
    if (e.operator === 'In' && !(has && values.includes(l[e.key]))) return false;
    if (e.operator === 'NotIn' && has && values.includes(l[e.key])) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

/** Renders a structured selector as the string form (for Scale.status.selector). */
export function selectorToString(selector: Json | undefined): string {
  if (!selector) return '';
  const parts: string[] = [];
  for (const [k, v] of Object.entries((selector.matchLabels ?? {}) as Record<string, string>)) parts.push(`${k}=${v}`);
  for (const e of (selector.matchExpressions ?? []) as { key: string; operator: string; values?: string[] }[]) {
    if (e.operator === 'In' || e.operator === 'NotIn') parts.push(`${e.key} ${e.operator.toLowerCase()} (${(e.values ?? []).join(',')})`);
    else parts.push(e.operator === 'Exists' ? e.key : `!${e.key}`);
  }
  return parts.join(',');
}

type FieldRequirement = { path: string[]; negate: boolean; value: string };

export function parseFieldSelector(selector: string): FieldRequirement[] {
  return splitTopLevel(selector).map((part) => {
    const m = CMP_RE.exec(part);
    if (!m) throw badRequest(`invalid field selector "${selector}" at "${part}"`);
    return { path: m[1].split('.'), negate: m[2] === '!=', value: m[3].trim() };
  });
}

/** The string form of a dotted path, as a field selector compares it ('' when missing). */
export function fieldValue(obj: KubeObject, path: string[]): string {
  let cur: unknown = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return '';
    cur = (cur as Json)[p];
  }
  if (cur === undefined || cur === null) return '';
  return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
}

/** Field selectors compare the string form of a dotted path; a missing field is the empty string (as `spec.nodeName=`). */
export function matchesFieldSelector(obj: KubeObject, reqs: FieldRequirement[]): boolean {
  return reqs.every((r) => (fieldValue(obj, r.path) === r.value) !== r.negate);
}
