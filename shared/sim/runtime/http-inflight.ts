/**
 * HTTP requests in flight from this process (node:diagnostics_channel), so virtual time never moves while a
 * function waits for the fake API server, even when it also sleeps on the clock (e.g. a race with a timeout).
 */
import diagnostics from 'node:diagnostics_channel';

export class HttpInFlight {
  private readonly open = new Set<object>();
  private readonly subscriptions: [string, (message: unknown) => void][] = [];

  start(): this {
    const started = (m: unknown) => {
      const request = (m as { request?: { path?: string } }).request;
      // A watch stream stays open by design: what it delivers is accounted by the watch probe instead.
      if (request && !/[?&]watch=(true|1)(&|$)/.test(request.path ?? '')) this.open.add(request);
    };
    const ended = (m: unknown) => {
      const request = (m as { request?: object }).request;
      if (request) this.open.delete(request);
    };
    this.subscriptions.push(['http.client.request.start', started], ['http.client.response.finish', ended], ['http.client.request.error', ended]);
    for (const [name, fn] of this.subscriptions) diagnostics.subscribe(name, fn);
    return this;
  }

  count(): number {
    return this.open.size;
  }

  stop(): void {
    for (const [name, fn] of this.subscriptions) diagnostics.unsubscribe(name, fn);
    this.subscriptions.length = 0;
    this.open.clear();
  }
}
