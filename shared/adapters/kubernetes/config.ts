/**
 * KubeConfig factories for @kubernetes/client-node (it authenticates every request: ./rest.ts, ./watch.ts): one for EKS (endpoint + CA from DescribeCluster, a bearer
 * token from a provider asked on every request) and one for a plain server URL (the simulator's fake API server).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node/dist/config.js';
import type { User } from '@kubernetes/client-node/dist/config_types.js';

type Authenticator = Parameters<KubeConfig['addAuthenticator']>[0];

/** Gives a bearer token; the EKS provider presigns STS GetCallerIdentity (`k8s-aws-v1.…`) and refreshes before expiry. */
export interface TokenProvider {
  token(): Promise<string>;
}

const AUTH_PROVIDER = 'nodewright-token-provider';

/** Puts the provider's current token on every request (client-node calls this per request). */
class TokenProviderAuthenticator implements Authenticator {
  constructor(private readonly provider: TokenProvider) {}
  isAuthProvider(user: User): boolean {
    return (user.authProvider as { name?: string } | undefined)?.name === AUTH_PROVIDER;
  }
  async applyAuthentication(_user: User, opts: Parameters<Authenticator['applyAuthentication']>[1]): Promise<void> {
    const token = await this.provider.token();
    opts.headers = { ...(opts.headers ?? {}), Authorization: `Bearer ${token}` };
  }
}

export class KubeConfigInvalidError extends Error {
  override readonly name = 'KubeConfigInvalidError' as const;
}

type AgentFactory = (cluster: { server?: string } | null, options: Record<string, unknown>) => unknown;

/**
 * @kubernetes/client-node 1.4 builds a new https.Agent (and so a new TLS context and handshake) for every
 * request. One snapshot makes about a dozen list calls, so reuse one keep-alive agent per server and TLS
 * options instead, shared by every KubeConfig of the process. `createAgent` is private in the typings
 * (pinned version; covered by the adapter tests).
 */
const agents = new Map<string, unknown>();

function reuseAgents(kc: KubeConfig): KubeConfig {
  const target = kc as unknown as { createAgent: AgentFactory };
  const original = target.createAgent.bind(kc) as AgentFactory;
  target.createAgent = (cluster, options) => {
    const key = JSON.stringify([cluster?.server, options.rejectUnauthorized, options.servername, String(options.ca ?? ''), String(options.cert ?? '')]);
    let agent = agents.get(key);
    if (!agent) agents.set(key, (agent = original(cluster, { ...options, keepAlive: true })));
    return agent;
  };
  return kc;
}

function build(name: string, cluster: { server: string; caData?: string; skipTLSVerify?: boolean }, user: User): KubeConfig {
  const kc = reuseAgents(new KubeConfig());
  kc.loadFromOptions({
    clusters: [{ name, server: cluster.server, caData: cluster.caData, skipTLSVerify: cluster.skipTLSVerify ?? false }],
    users: [user],
    contexts: [{ name, cluster: name, user: user.name }],
    currentContext: name,
  });
  return kc;
}

/**
 * EKS: `endpoint` and `caData` (base64 PEM, as DescribeCluster's certificateAuthority.data) and a token provider.
 * The provider is asked on every request, so a caching provider decides when to refresh.
 */
export function kubeConfigForEks(opts: { endpoint: string; caData: string; tokenProvider: TokenProvider; name?: string }): KubeConfig {
  if (!/^https:\/\//.test(opts.endpoint))
    throw new KubeConfigInvalidError(`kubeConfigForEks: endpoint must be an https:// URL, got ${JSON.stringify(opts.endpoint)}`);
  if (!opts.caData) throw new KubeConfigInvalidError('kubeConfigForEks: caData (the cluster certificate authority, base64) is required');
  const name = opts.name ?? 'eks';
  const kc = reuseAgents(new KubeConfig());
  kc.addAuthenticator(new TokenProviderAuthenticator(opts.tokenProvider));
  kc.loadFromOptions({
    clusters: [{ name, server: opts.endpoint, caData: opts.caData, skipTLSVerify: false }],
    users: [{ name: `${name}-user`, authProvider: { name: AUTH_PROVIDER, config: {} } }],
    contexts: [{ name, cluster: name, user: `${name}-user` }],
    currentContext: name,
  });
  return kc;
}

/**
 * A plain server URL, e.g. the fake API server. http:// needs skipTLSVerify in client-node 1.x (it refuses
 * plain http otherwise), so it is set for http; for https pass `caData` (base64 PEM) or `skipTLSVerify`.
 */
export function kubeConfigForServer(opts: { server: string; token?: string; caData?: string; skipTLSVerify?: boolean; name?: string }): KubeConfig {
  if (!/^https?:\/\//.test(opts.server))
    throw new KubeConfigInvalidError(`kubeConfigForServer: server must be an http(s):// URL, got ${JSON.stringify(opts.server)}`);
  const name = opts.name ?? 'server';
  const http = opts.server.startsWith('http://');
  return build(name, { server: opts.server, caData: opts.caData, skipTLSVerify: http || opts.skipTLSVerify }, { name: `${name}-user`, token: opts.token });
}

/** Wraps a provider so a token is reused for `ttlMs` (EKS tokens are accepted for 15 minutes; default 10). */
export function cachingTokenProvider(inner: TokenProvider, opts: { ttlMs?: number; now?: () => number } = {}): TokenProvider {
  const ttl = opts.ttlMs ?? 10 * 60_000;
  const now = opts.now ?? (() => Date.now());
  let cached: { token: string; at: number } | undefined;
  let inflight: Promise<string> | undefined;
  return {
    async token() {
      if (cached && now() - cached.at < ttl) return cached.token;
      inflight ??= inner
        .token()
        .then((t) => {
          cached = { token: t, at: now() };
          return t;
        })
        .finally(() => {
          inflight = undefined;
        });
      return inflight;
    },
  };
}

/**
 * A user's kubeconfig, as kubectl reads it: `file`, else $KUBECONFIG, else ~/.kube/config; `context`, else its
 * current context. Its users authenticate as configured (tokens, client certificates, exec plugins such as
 * `aws eks get-token`). KubeConfigInvalidError names what is missing.
 */
export function kubeConfigFromUser(opts: { file?: string; context?: string }): KubeConfig {
  const kc = new KubeConfig();
  // Without one, client-node falls back to http://localhost:8080: say what to give instead.
  const home = process.env.HOME ?? process.env.USERPROFILE;
  if (!opts.file && !process.env.KUBECONFIG && !process.env.KUBERNETES_SERVICE_HOST && !(home && existsSync(join(home, '.kube', 'config'))))
    throw new KubeConfigInvalidError(
      'no kubeconfig: give --kubeconfig FILE, set KUBECONFIG, or write ~/.kube/config (aws eks update-kubeconfig --name <cluster>)',
    );
  try {
    if (opts.file) kc.loadFromFile(opts.file);
    else kc.loadFromDefault();
  } catch (e) {
    throw new KubeConfigInvalidError(`cannot read kubeconfig ${opts.file ?? process.env.KUBECONFIG ?? '~/.kube/config'}: ${(e as Error).message}`);
  }
  if (opts.context) {
    if (!kc.getContexts().some((c) => c.name === opts.context)) {
      throw new KubeConfigInvalidError(
        `kubeconfig has no context "${opts.context}" (it has: ${
          kc
            .getContexts()
            .map((c) => c.name)
            .join(', ') || 'none'
        })`,
      );
    }
    kc.setCurrentContext(opts.context);
  }
  if (!kc.getCurrentCluster()) throw new KubeConfigInvalidError(`kubeconfig ${opts.file ?? ''} names no current cluster (use --context)`.replace('  ', ' '));
  return reuseAgents(kc);
}
