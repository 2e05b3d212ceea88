import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

const EKS_TOKEN_PREFIX = 'k8s-aws-v1.';
/** X-Amz-Expires of the presigned URL (what aws-iam-authenticator expects). */
const PRESIGN_EXPIRES_SECONDS = 60;
/** EKS accepts a token for 15 minutes after signing; like `aws eks get-token` we treat it as valid for 14. */
const TOKEN_LIFETIME_MS = 14 * 60 * 1000;
/** Tokens are re-signed this long before they would expire. */
const DEFAULT_REFRESH_BEFORE_MS = 60 * 1000;

export interface EksTokenOptions {
  clusterName: string;
  region: string;
  credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Signing time (milliseconds since epoch). */
  signingDate: number;
}

/**
 * The regional STS endpoint the token names, as aws-iam-authenticator builds it: AWS China's regions (`cn-*`) are
 * under `amazonaws.com.cn`; the commercial and GovCloud (`us-gov-*`) regions under `amazonaws.com`.
 */
const stsHost = (region: string): string => `sts.${region}.${region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com'}`;

/** The EKS bearer token: `k8s-aws-v1.` + base64url (no padding) of a presigned STS GetCallerIdentity URL. */
export async function presignEksToken(opts: EksTokenOptions): Promise<string> {
  const host = stsHost(opts.region);
  const signer = new SignatureV4({ service: 'sts', region: opts.region, credentials: opts.credentials, sha256: Sha256 });
  const request = new HttpRequest({
    method: 'GET',
    protocol: 'https:',
    hostname: host,
    path: '/',
    query: { Action: 'GetCallerIdentity', Version: '2011-06-15' },
    headers: { host, 'x-k8s-aws-id': opts.clusterName },
  });
  const signed = await signer.presign(request, { expiresIn: PRESIGN_EXPIRES_SECONDS, signingDate: new Date(opts.signingDate) });
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(signed.query ?? {})) {
    if (Array.isArray(v)) for (const item of v) query.append(k, item);
    else if (v !== null && v !== undefined) query.append(k, v);
  }
  const url = `https://${host}/?${query.toString()}`;
  return EKS_TOKEN_PREFIX + Buffer.from(url).toString('base64url');
}

interface BearerTokenProvider {
  token(): Promise<string>;
}

export interface EksTokenProviderOptions {
  clusterName: string;
  region: string;
  /** Default: the Node provider chain (Lambda's role credentials). */
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /** Milliseconds since epoch; default Date.now. */
  clock?: () => number;
  refreshBeforeMs?: number;
}

/** A cached EKS bearer token, re-signed before it expires. Concurrent callers share one signing. */
export class EksTokenProvider implements BearerTokenProvider {
  private cached?: { token: string; expiresAt: number };
  private inflight?: Promise<string>;
  private readonly clock: () => number;
  private readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  private readonly refreshBeforeMs: number;

  constructor(private readonly opts: EksTokenProviderOptions) {
    if (!opts.clusterName) throw new Error('EksTokenProvider: clusterName is required');
    if (!opts.region) throw new Error('EksTokenProvider: region is required');
    this.clock = opts.clock ?? Date.now;
    this.credentials = opts.credentials ?? fromNodeProviderChain();
    this.refreshBeforeMs = opts.refreshBeforeMs ?? DEFAULT_REFRESH_BEFORE_MS;
  }

  /** Milliseconds since epoch after which the current token is no longer handed out (undefined before the first). */
  get expiresAt(): number | undefined {
    return this.cached?.expiresAt;
  }

  async token(): Promise<string> {
    const now = this.clock();
    if (this.cached && now < this.cached.expiresAt - this.refreshBeforeMs) return this.cached.token;
    if (!this.inflight) {
      this.inflight = presignEksToken({ clusterName: this.opts.clusterName, region: this.opts.region, credentials: this.credentials, signingDate: now })
        .then((token) => {
          this.cached = { token, expiresAt: now + TOKEN_LIFETIME_MS };
          return token;
        })
        .finally(() => {
          this.inflight = undefined;
        });
    }
    return this.inflight;
  }
}
