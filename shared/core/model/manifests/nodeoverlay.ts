/**
 * karpenter.sh/v1alpha1 NodeOverlay: zod validation with the CRD's patterns and CEL rules (kubernetes-sigs/karpenter
 * pkg/apis/crds/karpenter.sh_nodeoverlays.yaml and nodeoverlay_validation.go) and mapping to the normalized overlay.
 */
import * as z from '../../zod';
import type { NodeOverlay, StatusCondition } from '../karpenter';
import type { NodeSelectorRequirement } from '../kube';
import { Label } from '../labels';
import { arr, normalizeKey, num, obj, resources, type Json, type ManifestContext } from './context';
import { labelKeyProblem, labelValueProblem } from './label-rules';
import { nonNegativeQuantity, parseOrThrow, stringish } from './zod-helpers';

const NUMERIC_OPERATORS = new Set(['Gt', 'Lt', 'Gte', 'Lte']);
/** Resources an overlay may not set: it adds extended resources, never replaces the standard ones. */
const WELL_KNOWN_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage', 'pods']);
/** The CRD's patterns, as Karpenter publishes them. */
const PRICE_RE = /^\d+(\.\d+)?$/;
const PRICE_ADJUSTMENT_RE = /^(([+-]{1}(\d*\.?\d+))|(\+{1}\d*\.?\d+%)|(^(-\d{1,2}(\.\d+)?%)$)|(-100%))$/;

/** Karpenter's overlay keys: its NodePool rules, except that `karpenter.sh/nodepool` may be matched. */
function overlayKeyProblem(key: string): string | undefined {
  if (key === Label.nodePool) return undefined;
  return labelKeyProblem(key);
}

const requirementSchema = z
  .object({
    key: z.string({ error: (iss) => (iss.input === undefined ? 'key is required' : 'key must be a string') }),
    operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt', 'Gte', 'Lte']),
    values: z.optional(z.array(stringish)),
  })
  .check(
    z.superRefine((r, ctx) => {
      const problem = overlayKeyProblem(normalizeKey(r.key));
      if (problem) ctx.addIssue({ code: 'custom', path: ['key'], message: problem });
      const values = r.values ?? [];
      if (r.operator === 'In' && values.length === 0)
        ctx.addIssue({ code: 'custom', path: ['values'], message: "requirements with operator 'In' must have a value defined" });
      if (r.operator === 'NotIn' && values.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['values'], message: "requirements with operator 'NotIn' must have a value defined" });
      }
      if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length > 0) {
        ctx.addIssue({ code: 'custom', path: ['values'], message: `operator ${r.operator} must not have values` });
      }
      if (r.operator === 'In' || r.operator === 'NotIn') {
        values.forEach((v, i) => {
          const bad = labelValueProblem(v);
          if (bad) ctx.addIssue({ code: 'custom', path: ['values', i], message: bad });
        });
      }
      if (NUMERIC_OPERATORS.has(r.operator) && (values.length !== 1 || !/^[0-9]+$/.test(values[0]))) {
        ctx.addIssue({
          code: 'custom',
          path: ['values'],
          message: "requirements operator 'Gt', 'Lt', 'Gte' or 'Lte' must have a single positive integer value",
        });
      }
    }),
  );

const nodeOverlaySchema = z.object({
  metadata: z.object({ name: z.string({ error: 'metadata.name is required' }).check(z.minLength(1, 'metadata.name is required')) }),
  spec: z
    .object(
      {
        requirements: z.array(requirementSchema).check(z.maxLength(100, 'at most 100 requirements')),
        price: z.optional(z.string().check(z.regex(PRICE_RE, 'price must be a non-negative decimal such as "5.00" (no sign, no %)'))),
        priceAdjustment: z.optional(
          z.string().check(z.regex(PRICE_ADJUSTMENT_RE, 'priceAdjustment must be signed: "+0.5", "-1.2", "+10%" or "-15%" (at most -100%)')),
        ),
        capacity: z.optional(
          z
            .record(z.string(), nonNegativeQuantity)
            .check(
              z.refine(
                (c) => Object.keys(c).every((k) => !WELL_KNOWN_RESOURCES.has(k)),
                'invalid resource restricted (cpu, memory, ephemeral-storage and pods cannot be set)',
              ),
            ),
        ),
        weight: z.optional(
          z
            .number()
            .check(z.int('weight must be an integer'), z.gte(1, 'weight must be between 1 and 10000'), z.lte(10000, 'weight must be between 1 and 10000')),
        ),
      },
      { error: (iss) => (iss.input === undefined ? 'spec is required' : 'spec must be an object') },
    )
    .check(z.refine((s) => s.price === undefined || s.priceAdjustment === undefined, "cannot set both 'price' and 'priceAdjustment'")),
});

const conditionStatus = (v: unknown): StatusCondition['status'] => (v === 'True' || v === 'False' ? v : 'Unknown');

/** Validates a NodeOverlay as the CRD would and maps it; throws ManifestValidationError naming the field. */
export function nodeOverlayFromKube(o: Json, ctx?: ManifestContext): NodeOverlay {
  const parsed = parseOrThrow(nodeOverlaySchema, o, ctx);
  const spec = parsed.spec;
  const overlay: NodeOverlay = {
    name: parsed.metadata.name,
    weight: spec.weight ?? 0,
    requirements: spec.requirements.map((r): NodeSelectorRequirement => ({
      key: normalizeKey(r.key),
      operator: r.operator,
      ...(r.values ? { values: r.values } : {}),
    })),
    capacity: resources(spec.capacity, ctx, 'spec.capacity'),
  };
  if (spec.price !== undefined) overlay.price = spec.price;
  if (spec.priceAdjustment !== undefined) overlay.priceAdjustment = spec.priceAdjustment;
  const generation = num(obj(o.metadata).generation);
  if (generation !== undefined) overlay.generation = generation;
  if (o.status !== undefined) {
    overlay.observedConditions = arr(obj(o.status).conditions)
      .map(obj)
      .map((c) => ({ type: String(c.type), status: conditionStatus(c.status), reason: String(c.reason ?? ''), message: String(c.message ?? '') }));
  }
  return overlay;
}
