/** karpenter.sh/v1 NodePool: zod validation (docs/karpenter-reference.md §1.1) and mapping to the normalized NodePool. */
import { readPoolPolicy } from './pool-policy';
import * as z from '../../zod';
import { parseDuration, parseDurationOrNever } from '../duration';
import { RebalancePolicies, type NodePool, type RebalancePolicy } from '../karpenter';
import { Annotation } from '../labels';
import type { NodeSelectorRequirement, Taint } from '../kube';
import { nodePoolHash } from '../hash';
import { arr, fail, normalizeKey, obj, resources, str, toEpochMs, type Json, type ManifestContext } from './context';
import { labelKeyProblem, labelValueProblem, qualifiedNameProblem } from './label-rules';
import { duration, durationOrNever, nonNegativeQuantity, parseOrThrow, requiredObject, stringMapSchema, stringish } from './zod-helpers';

const NODE_CLASS_GROUP = 'karpenter.k8s.aws';
const NODE_CLASS_KIND = 'EC2NodeClass';
const NUMERIC_OPERATORS = new Set(['Gt', 'Lt', 'Gte', 'Lte']);

const requirementSchema = z
  .object({
    key: z.string({ error: (iss) => (iss.input === undefined ? 'key is required' : 'key must be a string') }),
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte']),
    values: z.optional(z.array(stringish)),
    minValues: z.optional(z.number().check(z.int(), z.gte(1, 'minValues must be between 1 and 50'), z.lte(50, 'minValues must be between 1 and 50'))),
  })
  .check(
    z.superRefine((r, ctx) => {
      const key = normalizeKey(r.key);
      const keyProblem = labelKeyProblem(key);
      if (keyProblem) ctx.addIssue({ code: 'custom', path: ['key'], message: keyProblem });
      const values = r.values ?? [];
      if ((r.operator === 'In' || r.operator === 'NotIn') && values.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} requires at least one value` });
      }
      if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length > 0) {
        ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} must not have values` });
      }
      if (r.operator === 'In' || r.operator === 'NotIn') {
        values.forEach((v, i) => {
          const problem = labelValueProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', path: ['values', i], message: problem });
        });
      }
      if (NUMERIC_OPERATORS.has(r.operator) && (values.length !== 1 || !/^[0-9]+$/.test(values[0]))) {
        ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} requires exactly one integer value ≥ 0` });
      }
      if (r.minValues !== undefined && r.operator === 'In' && r.minValues > values.length) {
        ctx.addIssue({ code: 'custom', path: ['minValues'], message: `minValues (${r.minValues}) must not exceed the number of values (${values.length})` });
      }
    }),
  );

/** The CRD's taint value pattern (a qualified name); an empty value is the same as none. */
const TAINT_VALUE_RE = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

const taintSchema = z.object({
  key: z
    .string({ error: 'taint key is required' })
    .check(z.refine((k) => !qualifiedNameProblem(k), { error: (iss) => qualifiedNameProblem(String(iss.input)) ?? 'invalid key' })),
  value: z.optional(
    stringish.check(
      z.refine((v) => v === '' || TAINT_VALUE_RE.test(v), {
        error: (iss) =>
          `${JSON.stringify(String(iss.input))} is not a valid taint value (alphanumerics, "-", "_", ".", an optional "prefix/", starting and ending alphanumeric)`,
      }),
    ),
  ),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
});

const labelsSchema = stringMapSchema.check(
  z.superRefine((labels, ctx) => {
    if (Object.keys(labels).length > 100) ctx.addIssue({ code: 'custom', path: [], message: 'at most 100 labels are allowed' });
    for (const [k, v] of Object.entries(labels)) {
      const problem = labelKeyProblem(normalizeKey(k)) ?? labelValueProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', path: [k], message: problem });
    }
  }),
);

const BUDGET_NODES_RE = /^((100|[0-9]{1,2})%|[0-9]+)$/;
const BUDGET_DURATION_RE = /^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$/;
const SCHEDULE_RE = /^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\s(.+)\s(.+)\s(.+)\s(.+))$/;

const budgetSchema = z
  .object({
    nodes: stringish.check(z.refine((s) => BUDGET_NODES_RE.test(s), 'nodes must be a count ("3") or a percentage ("10%")')),
    schedule: z.optional(z.string().check(z.regex(SCHEDULE_RE, 'schedule must be a 5-field cron expression or a macro such as @daily'))),
    duration: z.optional(z.string().check(z.regex(BUDGET_DURATION_RE, 'duration must be hours and/or minutes, e.g. "1h30m"'))),
    reasons: z.optional(z.array(z.enum(['Underutilized', 'Empty', 'Drifted']))),
  })
  .check(
    z.superRefine((b, ctx) => {
      if ((b.schedule === undefined) !== (b.duration === undefined)) {
        ctx.addIssue({
          code: 'custom',
          path: [b.schedule === undefined ? 'schedule' : 'duration'],
          message: "'schedule' must be set together with 'duration'",
        });
      }
    }),
  );

const templateSpecSchema = requiredObject(
  {
    taints: z.optional(z.array(taintSchema)),
    startupTaints: z.optional(z.array(taintSchema)),
    requirements: z
      .array(requirementSchema, { error: (iss) => (iss.input === undefined ? 'requirements is required' : 'requirements must be a list') })
      .check(z.maxLength(100, 'at most 100 requirements are allowed')),
    // Karpenter's AWS provider only resolves karpenter.k8s.aws EC2NodeClasses; any other reference is rejected here.
    nodeClassRef: requiredObject(
      {
        group: z.string({ error: 'group is required' }).check(
          z.minLength(1, 'group must not be empty'),
          z.refine((g) => g === '' || g === NODE_CLASS_GROUP, { error: (iss) => `group must be "${NODE_CLASS_GROUP}", got ${JSON.stringify(iss.input)}` }),
        ),
        kind: z.string({ error: 'kind is required' }).check(
          z.minLength(1, 'kind must not be empty'),
          z.refine((k) => k === '' || k === NODE_CLASS_KIND, { error: (iss) => `kind must be "${NODE_CLASS_KIND}", got ${JSON.stringify(iss.input)}` }),
        ),
        name: z.string({ error: 'name is required' }).check(z.minLength(1, 'name must not be empty')),
      },
      'nodeClassRef',
    ),
    expireAfter: z.optional(durationOrNever('expireAfter')),
    terminationGracePeriod: z.optional(duration('terminationGracePeriod')),
  },
  'spec.template.spec',
).check(
  z.superRefine((spec, ctx) => {
    const seen = new Set<string>();
    for (const field of ['taints', 'startupTaints'] as const) {
      (spec[field] ?? []).forEach((t, i) => {
        const id = `${t.key}:${t.effect}`;
        if (seen.has(id))
          ctx.addIssue({
            code: 'custom',
            path: [field, i],
            message: `duplicate taint ${t.key}:${t.effect} (key and effect must be unique across taints and startupTaints)`,
          });
        seen.add(id);
      });
    }
  }),
);

export const nodePoolSchema = z
  .object({
    metadata: z.object({ name: z.string({ error: 'metadata.name is required' }).check(z.minLength(1, 'metadata.name is required')) }),
    spec: requiredObject(
      {
        weight: z.optional(
          z.number().check(z.int('weight must be an integer'), z.gte(1, 'weight must be between 1 and 100'), z.lte(100, 'weight must be between 1 and 100')),
        ),
        template: requiredObject(
          {
            metadata: z.optional(z.object({ labels: z.optional(labelsSchema), annotations: z.optional(stringMapSchema) })),
            spec: templateSpecSchema,
          },
          'spec.template',
        ),
        disruption: z.optional(
          z.object({
            consolidationPolicy: z.optional(z.enum(['WhenEmpty', 'WhenEmptyOrUnderutilized', 'Balanced'])),
            consolidateAfter: z.optional(durationOrNever('consolidateAfter')),
            budgets: z.optional(z.array(budgetSchema).check(z.maxLength(50, 'at most 50 budgets are allowed'))),
          }),
        ),
        limits: z.optional(z.record(z.string(), nonNegativeQuantity)),
        /** Static NodePool (Karpenter v1.8+): keep exactly this many nodes. */
        replicas: z.optional(z.number().check(z.int('replicas must be an integer'), z.gte(0, 'replicas must be at least 0'))),
      },
      'spec',
    ),
  })
  .check(
    z.superRefine((np, ctx) => {
      // Karpenter's CEL rules on static NodePools, with its messages.
      if (np.spec.replicas === undefined) return;
      const limits = Object.keys(np.spec.limits ?? {});
      if (limits.some((k) => k !== 'nodes'))
        ctx.addIssue({ code: 'custom', path: ['spec', 'limits'], message: "only 'limits.nodes' is supported on static NodePools" });
      if (np.spec.weight !== undefined) ctx.addIssue({ code: 'custom', path: ['spec', 'weight'], message: "'weight' is not supported on static NodePools" });
    }),
  );

export const DEFAULT_EXPIRE_AFTER = 720 * 3600;

const toTaint = (t: { key: string; value?: string; effect: Taint['effect'] }): Taint =>
  t.value ? { key: t.key, value: t.value, effect: t.effect } : { key: t.key, effect: t.effect };

/** Validates a karpenter.sh/v1 NodePool, applies defaults and returns the normalized NodePool. */
export function nodePoolFromKube(o: Json, ctx?: ManifestContext & { problemSuffix?: string }): NodePool {
  const parsed = parseOrThrow(nodePoolSchema, o, ctx, ctx?.problemSuffix);
  const spec = parsed.spec;
  const tpl = spec.template.spec;
  const metadata = obj(o.metadata);
  const pool: NodePool = {
    name: parsed.metadata.name,
    weight: spec.weight ?? 0,
    template: {
      labels: spec.template.metadata?.labels ?? {},
      annotations: spec.template.metadata?.annotations ?? {},
      taints: (tpl.taints ?? []).map(toTaint),
      startupTaints: (tpl.startupTaints ?? []).map(toTaint),
      requirements: tpl.requirements.map((r): NodeSelectorRequirement => {
        const req: NodeSelectorRequirement = { key: normalizeKey(r.key), operator: r.operator };
        if (r.values) req.values = r.values;
        if (r.minValues !== undefined) req.minValues = r.minValues;
        return req;
      }),
      nodeClassRef: { group: tpl.nodeClassRef.group, kind: tpl.nodeClassRef.kind, name: tpl.nodeClassRef.name },
      expireAfter: parseDurationOrNever(tpl.expireAfter, DEFAULT_EXPIRE_AFTER),
      terminationGracePeriod: tpl.terminationGracePeriod === undefined ? null : parseDuration(tpl.terminationGracePeriod),
    },
    disruption: {
      consolidationPolicy: spec.disruption?.consolidationPolicy ?? 'WhenEmptyOrUnderutilized',
      consolidateAfter: parseDurationOrNever(spec.disruption?.consolidateAfter, 0),
      budgets: (spec.disruption?.budgets ?? [{ nodes: '10%' }]).map((b) => {
        const budget: NodePool['disruption']['budgets'][number] = { nodes: b.nodes };
        if (b.schedule !== undefined) budget.schedule = b.schedule;
        if (b.duration !== undefined) budget.duration = parseDuration(b.duration);
        if (b.reasons !== undefined) budget.reasons = b.reasons;
        return budget;
      }),
    },
    limits: resources(spec.limits, ctx, 'spec.limits'),
  };
  if (spec.replicas !== undefined) pool.replicas = spec.replicas;
  const uid = str(metadata.uid);
  if (uid) pool.uid = uid;
  if (toEpochMs(metadata.deletionTimestamp) !== undefined) pool.deleting = true;
  const conditions = arr(obj(o.status).conditions).map(obj);
  const ready = conditions.find((c) => c.type === 'Ready');
  if (ready) pool.ready = ready.status === 'True';
  if (o.status !== undefined) {
    const st = obj(o.status);
    const status = (v: unknown): 'True' | 'False' | 'Unknown' => (v === 'True' || v === 'False' ? v : 'Unknown');
    pool.observedStatus = {
      resources: Object.fromEntries(Object.entries(obj(st.resources)).map(([k, v]) => [k, String(v)])),
      nodes: typeof st.nodes === 'number' ? st.nodes : Number(obj(st.resources).nodes ?? 0),
      conditions: conditions.map((c) => ({ type: String(c.type), status: status(c.status), reason: String(c.reason ?? ''), message: String(c.message ?? '') })),
    };
  }
  const rebalance = obj(metadata.annotations)[Annotation.rebalancePolicy];
  if (rebalance !== undefined) {
    if (!RebalancePolicies.includes(rebalance as RebalancePolicy)) {
      fail(ctx, `metadata.annotations["${Annotation.rebalancePolicy}"]`, `must be one of ${RebalancePolicies.join(', ')}; got ${JSON.stringify(rebalance)}`);
    }
    pool.rebalancePolicy = rebalance as RebalancePolicy;
  }
  const k = obj(metadata.annotations)[Annotation.balancedK];
  if (k !== undefined) {
    const where = `metadata.annotations["${Annotation.balancedK}"]`;
    if (typeof k !== 'string' || !/^\d+(\.\d+)?$/.test(k.trim()) || !(Number(k) >= 1))
      fail(ctx, where, `must be a number of at least 1 (k of Balanced); got ${JSON.stringify(k)}`);
    if (pool.disruption.consolidationPolicy !== 'Balanced')
      fail(ctx, where, `applies only to consolidationPolicy Balanced; this pool's is ${pool.disruption.consolidationPolicy}`);
    pool.disruption.balancedK = Number(k);
  }
  readPoolPolicy(pool, obj(metadata.annotations), ctx);
  pool.hash = nodePoolHash(pool);
  const annotations = obj(metadata.annotations);
  const recorded = { hash: str(annotations[Annotation.nodePoolHash]), version: str(annotations[Annotation.nodePoolHashVersion]) };
  if (recorded.hash !== undefined || recorded.version !== undefined) pool.recordedHash = recorded;
  return pool;
}
