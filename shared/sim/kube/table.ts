/**
 * meta.k8s.io/v1 Table responses, so `kubectl get` prints the same columns as against a real cluster: the
 * CRDs' additionalPrinterColumns (NodePool NodeClass/Nodes/Ready…, NodeClaim Type/Zone/Node…) and the usual
 * columns of nodes, pods and deployments. Ages come from the server's (virtual) clock.
 */
import type { KubeStore } from './store';
import type { Json, KubeObject, ResourceType } from './types';

interface Column {
  name: string;
  type: string;
  format?: string;
  priority: number;
  value: (o: KubeObject) => unknown;
}

/** k8s.io/apimachinery HumanDuration. */
export function humanDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (h < 24 * 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (d < 365 * 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
}

type Step = { field: string } | { filter: { key: string; value: string } };

/** The JSONPath subset printer columns use: `.a.b`, escaped dots (`node\.kubernetes\.io/x`), `[?(@.k=="v")]`. */
function parseJsonPath(path: string): Step[] {
  const steps: Step[] = [];
  let i = path.startsWith('.') ? 1 : 0;
  let cur = '';
  const flush = () => {
    if (cur) steps.push({ field: cur });
    cur = '';
  };
  while (i < path.length) {
    const ch = path[i];
    if (ch === '\\' && i + 1 < path.length) {
      cur += path[i + 1];
      i += 2;
      continue;
    }
    if (ch === '.') {
      flush();
      i++;
      continue;
    }
    if (ch === '[') {
      flush();
      const end = path.indexOf(']', i);
      const inner = path.slice(i + 1, end < 0 ? path.length : end);
      const m = /^\?\(@\.([\w.-]+)\s*==\s*["']([^"']*)["']\)$/.exec(inner);
      if (m) steps.push({ filter: { key: m[1], value: m[2] } });
      else if (/^\d+$/.test(inner)) steps.push({ field: inner });
      i = end < 0 ? path.length : end + 1;
      continue;
    }
    cur += ch;
    i++;
  }
  flush();
  return steps;
}

export function evalJsonPath(obj: unknown, path: string): unknown {
  let values: unknown[] = [obj];
  for (const step of parseJsonPath(path)) {
    const next: unknown[] = [];
    for (const v of values) {
      if ('field' in step) {
        if (v && typeof v === 'object') next.push((v as Json)[step.field]);
      } else if (Array.isArray(v)) {
        for (const item of v) if (item && typeof item === 'object' && String((item as Json)[step.filter.key]) === step.filter.value) next.push(item);
      }
    }
    values = next.filter((x) => x !== undefined && x !== null);
  }
  if (values.length === 0) return undefined;
  return values.length === 1 ? values[0] : values.join(',');
}

const age =
  (store: KubeStore) =>
  (o: KubeObject): string => {
    const t = Date.parse(o.metadata.creationTimestamp ?? '');
    return Number.isNaN(t) ? '<unknown>' : humanDuration(store.now() - t);
  };

const condition = (o: KubeObject, type: string): string | undefined =>
  ((o.status?.conditions ?? []) as { type: string; status: string }[]).find((c) => c.type === type)?.status;

function builtinColumns(rt: ResourceType, store: KubeStore): Column[] | undefined {
  const col = (name: string, value: (o: KubeObject) => unknown, priority = 0, type = 'string'): Column => ({ name, type, priority, value });
  switch (`${rt.group}/${rt.resource}`) {
    case '/nodes':
      return [
        col('Status', (o) => (condition(o, 'Ready') === 'True' ? 'Ready' : 'NotReady') + (o.spec?.unschedulable ? ',SchedulingDisabled' : '')),
        col('Roles', () => '<none>'),
        col('Age', age(store)),
        col('Version', (o) => evalJsonPath(o, '.status.nodeInfo.kubeletVersion') ?? ''),
        col('Instance-Type', (o) => o.metadata.labels?.['node.kubernetes.io/instance-type'] ?? '', 1),
        col('Zone', (o) => o.metadata.labels?.['topology.kubernetes.io/zone'] ?? '', 1),
      ];
    case '/pods':
      return [
        col('Ready', (o) => {
          const total = ((o.spec?.containers ?? []) as unknown[]).length;
          const ready = ((o.status?.containerStatuses ?? []) as { ready?: boolean }[]).filter((c) => c.ready).length;
          return `${condition(o, 'Ready') === 'True' && ready === 0 ? total : ready}/${total}`;
        }),
        col('Status', (o) => (o.metadata.deletionTimestamp ? 'Terminating' : String(o.status?.phase ?? 'Pending'))),
        col('Restarts', () => 0, 0, 'integer'),
        col('Age', age(store)),
        col('Node', (o) => o.spec?.nodeName ?? '<none>', 1),
      ];
    case 'apps/deployments':
      return [
        col('Ready', (o) => `${Number(o.status?.readyReplicas ?? 0)}/${Number(o.spec?.replicas ?? 1)}`),
        col('Up-to-date', (o) => Number(o.status?.updatedReplicas ?? 0), 0, 'integer'),
        col('Available', (o) => Number(o.status?.availableReplicas ?? 0), 0, 'integer'),
        col('Age', age(store)),
      ];
    case 'policy/poddisruptionbudgets':
      return [
        col('Min Available', (o) => (o.spec?.minAvailable !== undefined ? String(o.spec.minAvailable) : 'N/A')),
        col('Max Unavailable', (o) => (o.spec?.maxUnavailable !== undefined ? String(o.spec.maxUnavailable) : 'N/A')),
        col('Allowed Disruptions', (o) => Number(o.status?.disruptionsAllowed ?? 0), 0, 'integer'),
        col('Age', age(store)),
      ];
    case '/namespaces':
      return [col('Status', (o) => String(o.status?.phase ?? 'Active')), col('Age', age(store))];
    case '/services':
      return [
        col('Type', (o) => String(o.spec?.type ?? 'ClusterIP')),
        col('Cluster-IP', (o) => String(o.spec?.clusterIP ?? '<none>')),
        col('External-IP', () => '<none>'),
        col(
          'Port(s)',
          (o) => ((o.spec?.ports ?? []) as { port: number; protocol?: string }[]).map((p) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',') || '<none>',
        ),
        col('Age', age(store)),
      ];
    case 'apps/replicasets':
      return [
        col('Desired', (o) => Number(o.spec?.replicas ?? 1), 0, 'integer'),
        col('Current', (o) => Number(o.status?.replicas ?? 0), 0, 'integer'),
        col('Ready', (o) => Number(o.status?.readyReplicas ?? 0), 0, 'integer'),
        col('Age', age(store)),
      ];
    default:
      return undefined;
  }
}

function crdColumns(rt: ResourceType, store: KubeStore): Column[] | undefined {
  const crdType = store.registry.get('apiextensions.k8s.io', 'customresourcedefinitions');
  const crd = crdType ? store.tryGet(crdType, undefined, `${rt.resource}.${rt.group}`) : undefined;
  if (!crd) return undefined;
  const version = ((crd.spec?.versions ?? []) as Json[]).find((v) => v.name === rt.version);
  const printer = (version?.additionalPrinterColumns ?? []) as { name: string; type: string; jsonPath: string; priority?: number }[];
  if (printer.length === 0) return undefined;
  return printer.map((p) => ({
    name: p.name,
    type: p.type === 'date' ? 'string' : p.type,
    priority: p.priority ?? 0,
    value:
      p.type === 'date'
        ? (o: KubeObject) => {
            const v = evalJsonPath(o, p.jsonPath);
            const t = Date.parse(String(v ?? ''));
            return Number.isNaN(t) ? '<unknown>' : humanDuration(store.now() - t);
          }
        : (o: KubeObject) => evalJsonPath(o, p.jsonPath) ?? null,
  }));
}

/** True when the client asked for a meta.k8s.io/v1 Table (kubectl get does). */
export const wantsTable = (accept: string | undefined): boolean => /as=Table/.test(accept ?? '') && /v=v1(;|,|$)/.test(accept ?? '');

/** Events as the API server prints them (kubernetes printers' printEvent): no leading Name, it is the last, wide column. */
function eventColumns(store: KubeStore): Column[] {
  const since = (v: unknown): string => {
    const t = Date.parse(String(v ?? ''));
    return Number.isNaN(t) ? '<unknown>' : humanDuration(store.now() - t);
  };
  const first = (o: KubeObject) => since(o.firstTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp);
  const involved = (o: KubeObject) => (o.involvedObject ?? {}) as { kind?: string; name?: string; fieldPath?: string };
  const col = (name: string, value: (o: KubeObject) => unknown, priority = 0, type = 'string', format?: string): Column => ({
    name,
    type,
    priority,
    value,
    format,
  });
  return [
    col('Last Seen', (o) => (o.lastTimestamp ? since(o.lastTimestamp) : first(o))),
    col('Type', (o) => String(o.type ?? '')),
    col('Reason', (o) => String(o.reason ?? '')),
    col('Object', (o) => {
      const io = involved(o);
      return io.name ? `${String(io.kind ?? '').toLowerCase()}/${io.name}` : String(io.kind ?? '').toLowerCase();
    }),
    col('Subobject', (o) => involved(o).fieldPath ?? '', 1),
    col(
      'Source',
      (o) => {
        const src = (o.source ?? {}) as { component?: string; host?: string };
        const component = src.component || String(o.reportingComponent ?? '');
        return src.host ? `${component}, ${src.host}` : component;
      },
      1,
    ),
    col('Message', (o) => String(o.message ?? '').trim()),
    col('First Seen', first, 1),
    col('Count', (o) => Number(o.count ?? 1), 1, 'integer'),
    col('Name', (o) => o.metadata.name, 1, 'string', 'name'),
  ];
}

export function toTable(store: KubeStore, rt: ResourceType, items: KubeObject[], listMeta: Json, includeObject: string | null): Json {
  const all: Column[] =
    rt.group === '' && rt.resource === 'events'
      ? eventColumns(store)
      : [
          { name: 'Name', type: 'string', format: 'name', priority: 0, value: (o) => o.metadata.name },
          ...(crdColumns(rt, store) ?? builtinColumns(rt, store) ?? [{ name: 'Age', type: 'string', priority: 0, value: age(store) }]),
        ];
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: listMeta,
    columnDefinitions: all.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: '', priority: c.priority })),
    rows: items.map((o) => ({
      cells: all.map((c) => c.value(o)),
      object: includeObject === 'Object' ? o : { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata },
    })),
  };
}
