/**
 * HTTP requests in flight from this process (node:diagnostics_channel), so virtual time never moves while a
 * function waits for the fake API server, even when it also sleeps on the clock (e.g. a race with a timeout).
 */
import diagnostics from 'node:diagnostics_channel';
import { isWatch } from './cost';

type ClientRequestLike = { path?: string; socket?: { localPort?: number } | null };

const portOf = (request: object) => (request as ClientRequestLike).socket?.localPort;

export class HttpInFlight {
  private readonly open = new Set<object>();
  /** Requests whose answer the server holds back on purpose: not in flight until it writes the answer. */
  private readonly held = new Set<object>();
  /** Requests answered so far: progress while the count in flight stays the same (a busy large cluster). */
  private answered = 0;
  private readonly subscriptions: [string, (message: unknown) => void][] = [];

  start(): this {
    const started = (m: unknown) => {
      const request = (m as { request?: object }).request;
      if (request) this.open.add(request);
    };
    const failed = (m: unknown) => this.close((m as { request?: object }).request);
    // `response.finish` is published on 'response' (the headers), not at the body's end: a response's body still
    // streams through the loopback socket, and virtual time must not move until the client has it (else the next page
    // of a large LIST is sent at a later virtual instant). A watch stream stays open by design: what it delivers is
    // accounted by the watch probe, so it leaves at its headers.
    const answered = (m: unknown) => {
      const { request, response } = m as { request?: ClientRequestLike; response?: { once(event: string, fn: () => void): unknown; complete?: boolean } };
      if (!request) return;
      if (!response || isWatch(request.path ?? '') || response.complete) return this.close(request);
      response.once('end', () => this.close(request));
      response.once('close', () => this.close(request));
    };
    this.subscriptions.push(['http.client.request.start', started], ['http.client.response.finish', answered], ['http.client.request.error', failed]);
    for (const [name, fn] of this.subscriptions) diagnostics.subscribe(name, fn);
    return this;
  }

  private close(request: object | undefined): void {
    if (!request) return;
    this.held.delete(request);
    if (this.open.delete(request)) this.answered++;
  }

  /**
   * A request the fake API server holds on purpose (its answer paced by the cost model, or an injected hang): it stops
   * holding virtual time, so the answer's time (or the client's own timeout) can come. Matched by the client socket's
   * local port.
   */
  release(clientPort: number): void {
    for (const request of this.open) {
      if (portOf(request) === clientPort) {
        this.open.delete(request);
        this.held.add(request);
      }
    }
  }

  /** The server writes a held request's answer: it holds virtual time again until the client has read it. */
  resume(clientPort: number): void {
    for (const request of this.held) {
      if (portOf(request) === clientPort) {
        this.held.delete(request);
        this.open.add(request);
      }
    }
  }

  count(): number {
    return this.open.size;
  }

  completed(): number {
    return this.answered;
  }

  stop(): void {
    for (const [name, fn] of this.subscriptions) diagnostics.unsubscribe(name, fn);
    this.subscriptions.length = 0;
    this.open.clear();
    this.held.clear();
  }
}
