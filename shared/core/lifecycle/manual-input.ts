/**
 * Validation of state-machine execution input (manual or from another function), before any side effect.
 * Each machine accepts a few shapes; anything else is ExecutionInputInvalidError with a message that names
 * the machine, the field and the problem.
 */
import * as z from '../zod';
import { ExecutionInputInvalidError } from '../errors';
import type { WorkflowName } from '../ports';

const k8sName = z.string().check(z.minLength(1), z.maxLength(253), z.regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'must be a lowercase RFC 1123 name'));
const instanceId = z.string().check(z.regex(/^i-[0-9a-f]{8,17}$/, 'must look like i-0123456789abcdef0'));
const reason = z.optional(z.string().check(z.minLength(1), z.maxLength(200)));

const launchClaimInput = z.strictObject({ nodeClaimName: k8sName });
const launchPoolInput = z.strictObject({ nodePool: k8sName, count: z.number().check(z.int(), z.gte(1), z.lte(100)) });
const reconcileInput = z.strictObject({ reconcile: z.literal(true) });

export type LaunchInput = ({ kind: 'claim' } & z.infer<typeof launchClaimInput>) | ({ kind: 'pool' } & z.infer<typeof launchPoolInput>) | { kind: 'reconcile' };

const terminateByNode = z.strictObject({ nodeName: k8sName, reason });
const terminateByInstance = z.strictObject({ instanceId, reason });
/** `drainSeconds`: node repair's bound on the drain (the claim's terminationGracePeriod, at most this), counted from the drain's start. */
const drainSeconds = z.optional(z.number().check(z.int(), z.gte(0), z.lte(86_400)));
const terminateByClaim = z.strictObject({ nodeClaimName: k8sName, reason, drainSeconds });

export type TerminateInput =
  | ({ kind: 'node' } & z.infer<typeof terminateByNode>)
  | ({ kind: 'instance' } & z.infer<typeof terminateByInstance>)
  | ({ kind: 'claim' } & z.infer<typeof terminateByClaim>);

const replacementClaim = z.looseObject({
  name: k8sName,
  nodePool: k8sName,
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()),
  spec: z.looseObject({ requirements: z.array(z.looseObject({ key: z.string(), operator: z.string() })) }),
  status: z.looseObject({ conditions: z.array(z.unknown()) }),
  /** The model's EpochMs (milliseconds since the epoch). */
  creationTimestamp: z.number(),
  finalizers: z.array(z.string()),
});

/** Set by the interruption function: the node is going away whatever happens; drain by `drainBy` at the latest. */
const interruptionMode = z.strictObject({
  kind: z.enum(['SpotInterruption', 'ScheduledChange', 'InstanceStateChange', 'CapacityReservationInterruption', 'RebalanceRecommendation']),
  /** Milliseconds since epoch. */
  drainBy: z.number().check(z.int(), z.nonnegative()),
});

const disruptInput = z.strictObject({
  reason: z.union([
    z.enum(['Underutilized', 'Empty', 'Drifted', 'Expired', 'Unhealthy', 'Manual']),
    z
      .string()
      .check(
        z.regex(
          /^(SpotInterruption|ScheduledChange|CapacityReservationInterruption|RebalanceRecommendation|InstanceStateChange:[a-z-]+)$/,
          'must be Underutilized, Empty, Drifted, Expired, Unhealthy, Manual or an interruption kind',
        ),
      ),
  ]),
  candidates: z.array(z.strictObject({ nodeClaimName: k8sName, nodeName: z.optional(k8sName) })).check(z.minLength(1), z.maxLength(100)),
  replacements: z._default(z.array(replacementClaim).check(z.maxLength(100)), []),
  interruption: z.optional(interruptionMode),
  drainSeconds,
});
export type DisruptInput = z.infer<typeof disruptInput>;

function describeIssues(error: z.core.$ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
}

function parseWith<S extends z.ZodMiniType>(machine: WorkflowName, schema: S, input: unknown, shape: string): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ExecutionInputInvalidError(`${machine} execution input ${shape}: ${describeIssues(result.error)}`);
  }
  return result.data;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function requireObject(machine: WorkflowName, input: unknown, expected: string): Record<string, unknown> {
  if (!isObject(input)) {
    throw new ExecutionInputInvalidError(`${machine} execution input must be a JSON object, one of ${expected}; got ${JSON.stringify(input) ?? 'nothing'}`);
  }
  return input;
}

const LAUNCH_SHAPES = '{"nodeClaimName": …}, {"nodePool": …, "count": …} or {"reconcile": true}';
const TERMINATE_SHAPES = '{"nodeName": …}, {"instanceId": …} or {"nodeClaimName": …} (each with an optional "reason")';

export function parseLaunchInput(input: unknown): LaunchInput {
  const o = requireObject('launch', input, LAUNCH_SHAPES);
  if ('reconcile' in o) return { kind: 'reconcile', ...parseWith('launch', reconcileInput, o, '{"reconcile": true}') } as LaunchInput;
  if ('nodePool' in o || 'count' in o) return { kind: 'pool', ...parseWith('launch', launchPoolInput, o, '{"nodePool", "count"}') };
  if ('nodeClaimName' in o) return { kind: 'claim', ...parseWith('launch', launchClaimInput, o, '{"nodeClaimName"}') };
  throw new ExecutionInputInvalidError(`launch execution input must be one of ${LAUNCH_SHAPES}; got keys [${Object.keys(o).join(', ')}]`);
}

export function parseTerminateInput(input: unknown): TerminateInput {
  const o = requireObject('terminate', input, TERMINATE_SHAPES);
  const keys = ['nodeName', 'instanceId', 'nodeClaimName'].filter((k) => k in o);
  if (keys.length !== 1) {
    throw new ExecutionInputInvalidError(
      `terminate execution input must name exactly one target, one of ${TERMINATE_SHAPES}; got keys [${Object.keys(o).join(', ')}]`,
    );
  }
  if (keys[0] === 'nodeName') return { kind: 'node', ...parseWith('terminate', terminateByNode, o, '{"nodeName"}') };
  if (keys[0] === 'instanceId') return { kind: 'instance', ...parseWith('terminate', terminateByInstance, o, '{"instanceId"}') };
  return { kind: 'claim', ...parseWith('terminate', terminateByClaim, o, '{"nodeClaimName"}') };
}

export function parseDisruptInput(input: unknown): DisruptInput {
  requireObject('disrupt', input, '{"reason", "candidates", "replacements"}');
  return parseWith('disrupt', disruptInput, input, '{"reason", "candidates", "replacements"}');
}
