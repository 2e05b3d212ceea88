/**
 * The functions serverless.yml deploys, read from the same files (infra/functions/*.yml): handler module
 * path, schedule and SQS events. The simulator loads exactly these modules and calls their `handler`.
 */
import { createRequire } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

/**
 * The checkout this module runs from: the nearest folder above it with serverless.yml. Searched rather than fixed,
 * because the prebuilt CLI (dist/cli) bundles this module too (`doctor` reads the deployed functions).
 */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(resolve(dir, 'serverless.yml'))) {
    const up = dirname(dir);
    if (up === dir) return resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
    dir = up;
  }
  return dir;
}

export const REPO_ROOT = repoRoot();
export const FUNCTIONS_DIR = resolve(REPO_ROOT, 'infra/functions');

export interface DeployedFunction {
  key: string;
  /** As in serverless: `functions/provisioner/provisioner.handler`. */
  handler: string;
  /** Module path relative to the repository root, without extension. */
  modulePath: string;
  exportName: string;
  timeoutSeconds: number;
  /** memorySize as deployed: the function's own, else serverless.yml's `provider.memorySize` (Lambda's default 1024 without either). */
  memorySizeMb: number;
  /** Reserved concurrency, when set: scheduled invocations beyond it are throttled (skipped). */
  reservedConcurrency?: number;
  /** `rate(N minutes)` schedules, in seconds, with their constant input. */
  schedules: { everySeconds: number; input?: unknown }[];
  sqs: boolean;
  /** The SQS event's batchSize, maximumBatchingWindow (seconds) and maximumConcurrency, as set. */
  sqsTrigger?: { batchSize?: number; maximumBatchingWindowSeconds?: number; maximumConcurrency?: number };
}

/** The SQS event's settings the simulated event source honours. */
function sqsTrigger(events: Record<string, unknown>[]): Pick<DeployedFunction, 'sqsTrigger'> {
  const e = events.find((x) => x.sqs)?.sqs as Record<string, unknown> | undefined;
  if (!e) return {};
  const n = (v: unknown) => (typeof v === 'number' ? v : undefined);
  const out = { batchSize: n(e.batchSize), maximumBatchingWindowSeconds: n(e.maximumBatchingWindow), maximumConcurrency: n(e.maximumConcurrency) };
  return { sqsTrigger: Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) };
}

class FunctionDefinitionInvalidError extends Error {
  override readonly name = 'FunctionDefinitionInvalidError' as const;
}

function rateSeconds(rate: string, where: string): number {
  const m = /^rate\((\d+)\s+(minute|minutes|hour|hours|day|days)\)$/.exec(rate.trim());
  if (!m) throw new FunctionDefinitionInvalidError(`${where}: schedule "${rate}" is not a rate(N unit) expression the simulator understands`);
  const unit = m[2].startsWith('minute') ? 60 : m[2].startsWith('hour') ? 3600 : 86400;
  return Number(m[1]) * unit;
}

/**
 * A function's reserved concurrency as deployed with the default parameters: a number, or the
 * `${file(infra/concurrency.cjs):<key>, null}` reference resolved from that file's table.
 */
function reserved(key: string, value: unknown): { reservedConcurrency?: number } {
  if (value === undefined || value === null) return {};
  if (typeof value === 'number') return { reservedConcurrency: value };
  if (typeof value === 'string' && value.includes('infra/concurrency.cjs')) {
    const table = (createRequire(import.meta.url)(resolve(REPO_ROOT, 'infra/concurrency.cjs')) as { reserved: Record<string, number> }).reserved;
    return table[key] !== undefined ? { reservedConcurrency: table[key] } : {};
  }
  throw new FunctionDefinitionInvalidError(
    `function ${key}: reservedConcurrency ${JSON.stringify(value)} is neither a number nor an infra/concurrency.cjs reference`,
  );
}

/** A deployment parameter's value: `params.default` in serverless.yml, unless the deploy (or the scenario) sets it. */
export type DeployParams = Record<string, string | number | boolean>;

/** serverless.yml's `params.default`, overridden by `overrides` (`osls deploy --param="name=value"`). */
export function deployParams(overrides: DeployParams = {}): DeployParams {
  let defaults: DeployParams = {};
  try {
    defaults = (parse(readFileSync(resolve(REPO_ROOT, 'serverless.yml'), 'utf8')) as { params?: { default?: DeployParams } } | null)?.params?.default ?? {};
  } catch {
    defaults = {};
  }
  return { ...defaults, ...overrides };
}

/**
 * A function's memorySize as deployed with `params`: a number, or the `${file(infra/memory.cjs):<key>}` reference
 * resolved as the deploy resolves it (that file's `sizes`); undefined when the function sets none.
 */
export function memorySizeOf(key: string, value: unknown, params: DeployParams, where: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.includes('infra/memory.cjs')) {
    const sizes = (createRequire(import.meta.url)(resolve(REPO_ROOT, 'infra/memory.cjs')) as { sizes: (p: DeployParams) => Record<string, number> }).sizes;
    const mb = sizes(params)[key];
    if (mb !== undefined) return mb;
  }
  throw new FunctionDefinitionInvalidError(`${where}: memorySize ${JSON.stringify(value)} is neither a number nor an infra/memory.cjs reference`);
}

/** serverless.yml's `provider` settings every function inherits (timeout, memorySize). */
function providerDefaults(): { timeout?: number; memorySize?: number } {
  try {
    return (
      (parse(readFileSync(resolve(REPO_ROOT, 'serverless.yml'), 'utf8')) as { provider?: { timeout?: number; memorySize?: number } } | null)?.provider ?? {}
    );
  } catch {
    return {};
  }
}

/** Every function of infra/functions/*.yml as deployed with `params` (serverless.yml's defaults, overridden). */
export function deployedFunctions(dir = FUNCTIONS_DIR, params: DeployParams = deployParams()): DeployedFunction[] {
  const out: DeployedFunction[] = [];
  const provider = providerDefaults();
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.yml'))
    .sort()) {
    const doc = parse(readFileSync(resolve(dir, file), 'utf8')) as Record<string, Record<string, unknown>>;
    for (const [key, fn] of Object.entries(doc ?? {})) {
      const handler = String(fn.handler ?? '');
      const dot = handler.lastIndexOf('.');
      if (dot <= 0) throw new FunctionDefinitionInvalidError(`${file}: function ${key} has no handler "path.export"`);
      const events = (fn.events as Record<string, unknown>[] | undefined) ?? [];
      out.push({
        key,
        handler,
        modulePath: handler.slice(0, dot),
        exportName: handler.slice(dot + 1),
        timeoutSeconds: Number(fn.timeout ?? provider.timeout ?? 6),
        memorySizeMb: memorySizeOf(key, fn.memorySize, params, `${file}: function ${key}`) ?? Number(provider.memorySize ?? 1024),
        ...reserved(key, fn.reservedConcurrency),
        schedules: events
          .filter((e) => e.schedule)
          .map((e) => {
            const s = e.schedule as string | { rate: string | string[]; input?: unknown; enabled?: boolean };
            const rate = typeof s === 'string' ? s : Array.isArray(s.rate) ? s.rate[0] : s.rate;
            return { everySeconds: rateSeconds(rate, `${file}: ${key}`), ...(typeof s === 'object' && s.input !== undefined ? { input: s.input } : {}) };
          }),
        sqs: events.some((e) => e.sqs),
        ...sqsTrigger(events),
      });
    }
  }
  return out;
}

export type LambdaHandler = (event: unknown, context: unknown) => Promise<unknown>;

/** Imports the function's module (the same file esbuild bundles) and returns its exported handler. */
export async function loadHandler(fn: DeployedFunction): Promise<LambdaHandler> {
  return loadExport<LambdaHandler>(fn, fn.exportName);
}

/** A function-valued export of the function's module (`handler`, or `createHandler` for the tests' local handlers). */
export async function loadExport<T>(fn: DeployedFunction, exportName: string): Promise<T> {
  const base = resolve(REPO_ROOT, fn.modulePath);
  const file = ['.ts', '.js', '.mjs'].map((ext) => base + ext).find((f) => existsSync(f));
  if (!file) throw new FunctionDefinitionInvalidError(`function ${fn.key}: module ${fn.modulePath} not found`);
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const exported = mod[exportName];
  if (typeof exported !== 'function') throw new FunctionDefinitionInvalidError(`function ${fn.key}: ${fn.modulePath} does not export "${exportName}"`);
  return exported as T;
}
