/**
 * HTTP requests in flight from this process (node:diagnostics_channel), so virtual time never moves while a
 * function waits for the fake API server, even when it also sleeps on the clock (e.g. a race with a timeout).
 */
import diagnostics from 'node:diagnostics_channel';

export class HttpInFlight {
  private readonly open = new Set<object>();
  /** Requests answered so far: progress while the count in flight stays the same (a busy large cluster). */
  private answered = 0;
  private readonly subscriptions: [string, (message: unknown) => void][] = [];

  start(): this {
    const started = (m: unknown) => {
      // Until its response headers arrive (`response.finish` is published on 'response', not at the body's end):
      // a watch stream then stays open by design, and what it delivers is accounted by the watch probe instead.
      const request = (m as { request?: object }).request;
      if (request) this.open.add(request);
    };
    const ended = (m: unknown) => {
      const request = (m as { request?: object }).request;
      if (request && this.open.delete(request)) this.answered++;
    };
    this.subscriptions.push(['http.client.request.start', started], ['http.client.response.finish', ended], ['http.client.request.error', ended]);
    for (const [name, fn] of this.subscriptions) diagnostics.subscribe(name, fn);
    return this;
  }

  /**
   * A request the fake API server holds on purpose (an injected hang): it stops holding virtual time, so the
   * client's own timeout can fire. Matched by the client socket's local port.
   */
  release(clientPort: number): void {
    for (const request of this.open) {
      if ((request as { socket?: { localPort?: number } | null }).socket?.localPort === clientPort) this.open.delete(request);
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
  }
}
