/**
 * ClusterWatch over @kubernetes/client-node's Watch: one HTTP watch stream per kind, objects mapped to the core
 * model. Every received event is also published on the diagnostics channel `nodewright:watch-event` (no cost
 * without a subscriber), which is how the simulator knows an event has reached the controller before it lets
 * virtual time move.
 */
import diagnostics from 'node:diagnostics_channel';
import type { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import { Watch } from '@kubernetes/client-node/dist/watch.js';
import { firstOrTimeout, type Sleep } from './timeout';
import { nodeClaimFromKube, nodeClassFromKube, nodeFromKube, nodePoolFromKube, podFromKube } from '../../core/model/from-kube';
import type { ClusterWatch, WatchClosed, WatchedKind, WatchedObject, WatchEvent, WatchHandle } from '../../core/ports/cluster-watch';

type Json = Record<string, unknown>;

export const WATCH_EVENT_CHANNEL = 'nodewright:watch-event';
/** The controller's watches identify themselves (API server audit logs; the simulator counts their events). */
const CONTROLLER_USER_AGENT = 'nodewright-controller';

const PATHS: Record<WatchedKind, string> = {
  pods: '/api/v1/pods',
  nodes: '/api/v1/nodes',
  nodeclaims: '/apis/karpenter.sh/v1/nodeclaims',
  nodepools: '/apis/karpenter.sh/v1/nodepools',
  nodeclasses: '/apis/karpenter.k8s.aws/v1/ec2nodeclasses',
};

const channel = diagnostics.channel(WATCH_EVENT_CHANNEL);

function mapObject(kind: WatchedKind, o: Json): WatchedObject | undefined {
  const name = String((o.metadata as Json | undefined)?.name ?? '');
  try {
    switch (kind) {
      case 'pods':
        return { kind, name, pod: podFromKube(o) };
      case 'nodes':
        return { kind, name, node: nodeFromKube(o) };
      case 'nodeclaims':
        return { kind, name, nodeClaim: nodeClaimFromKube(o) };
      case 'nodepools':
        return { kind, name, nodePool: nodePoolFromKube(o) };
      case 'nodeclasses':
        return { kind, name, nodeClass: nodeClassFromKube(o) };
    }
  } catch {
    // An object the mappers refuse is not ours to act on; an invalid pool or class still changes what is ready.
    return kind === 'nodepools' || kind === 'nodeclasses' ? { kind, name } : undefined;
  }
}

let watchSeq = 0;

/** A KubeConfig whose requests carry the controller's User-Agent, naming the watch stream. */
function withUserAgent(kc: KubeConfig, id: number): KubeConfig {
  const wrapped = Object.create(kc) as KubeConfig;
  wrapped.applyToFetchOptions = async (opts) => {
    const out = await kc.applyToFetchOptions(opts);
    (out.headers as { set(k: string, v: string): void }).set('User-Agent', `${CONTROLLER_USER_AGENT} (watch ${id})`);
    return out;
  };
  return wrapped;
}

export interface KubeClusterWatchOptions {
  /** A watch request that gets no answer (no response headers) within this long is given up (default 20 s). */
  connectTimeoutMs?: number;
  /** The composition root's clock sleep (virtual time in the simulator). */
  sleep?: Sleep;
}

export class KubeClusterWatch implements ClusterWatch {
  constructor(
    private readonly kc: KubeConfig,
    private readonly opts: KubeClusterWatchOptions = {},
  ) {}

  /**
   * client-node's Watch resolves only once the server answers the request: a server that never answers would
   * hold the stream (and the controller's view of that kind) forever. Past the connect timeout the watch is
   * reported closed with an error, so the controller retries it; a late answer is aborted when it comes.
   */
  private async connect<T extends { abort(): void } | undefined>(
    kind: WatchedKind,
    start: Promise<T>,
    onTimeout: (why: WatchClosed) => void,
  ): Promise<T | undefined> {
    if (!this.opts.sleep) return start;
    const ms = this.opts.connectTimeoutMs ?? 20_000;
    const r = await firstOrTimeout(start, ms, this.opts.sleep);
    if (r.ok) return r.value;
    void start.then(
      (late) => late?.abort(),
      () => undefined,
    );
    onTimeout({ gone: false, error: `watch ${kind}: no answer within ${ms / 1000} s` });
    return undefined;
  }

  async watch(
    kind: WatchedKind,
    resourceVersion: string | undefined,
    onEvent: (e: WatchEvent) => void,
    onClosed: (why: WatchClosed) => void,
  ): Promise<WatchHandle> {
    let closed = false;
    const close = (why: WatchClosed) => {
      if (closed) return;
      closed = true;
      onClosed(why);
    };
    const query: Record<string, string | boolean> = { allowWatchBookmarks: true };
    if (resourceVersion) query.resourceVersion = resourceVersion;
    const id = ++watchSeq;
    const controller = await this.connect(
      kind,
      new Watch(withUserAgent(this.kc, id)).watch(
        PATHS[kind],
        query,
        (type: string, raw: unknown) => {
          if (channel.hasSubscribers) channel.publish({ id: String(id), kind, type });
          if (closed) return;
          const o = (raw ?? {}) as Json;
          if (type === 'ERROR') {
            const code = Number(o.code);
            close({ gone: code === 410, error: `watch ${kind}: ${String(o.message ?? o.reason ?? code)}` });
            controller?.abort();
            return;
          }
          const rv = (o.metadata as Json | undefined)?.resourceVersion;
          if (type === 'BOOKMARK') {
            if (typeof rv === 'string') onEvent({ type: 'BOOKMARK', resourceVersion: rv });
            return;
          }
          if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
          const object = mapObject(kind, o);
          if (object) onEvent({ type, object, ...(typeof rv === 'string' ? { resourceVersion: rv } : {}) });
        },
        (err: unknown) => {
          const code = (err as { statusCode?: number } | null)?.statusCode;
          close({ gone: code === 410, ...(err ? { error: `watch ${kind}: ${err instanceof Error ? err.message : String(err)}` } : {}) });
        },
      ),
      close,
    );
    return {
      stop: () => {
        closed = true;
        controller?.abort();
      },
    };
  }
}
