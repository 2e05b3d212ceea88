/**
 * Watch events on the wire: the fake API server counts what it wrote to each of the controller's watch streams,
 * the controller's watch adapter reports (diagnostics channel) what it received. Virtual time waits while a
 * stream has events written but not yet received, so an event always reaches the controller at the virtual
 * second it happened, whatever the machine's load — deterministic, and never kinder or crueller than the API.
 */
import diagnostics from 'node:diagnostics_channel';
import { WATCH_EVENT_CHANNEL } from '../../adapters/kubernetes/watch';
import type { FakeKubeApi } from '../kube/server';

export class WatchDelivery {
  private readonly received = new Map<string, number>();
  private readonly onEvent = (m: unknown) => {
    const id = (m as { id?: string }).id;
    if (id !== undefined) this.received.set(id, (this.received.get(id) ?? 0) + 1);
  };

  constructor(private readonly api: FakeKubeApi) {}

  start(): this {
    diagnostics.subscribe(WATCH_EVENT_CHANNEL, this.onEvent);
    return this;
  }

  /** A description while some stream has events in flight, else undefined. */
  busy(): string | undefined {
    let inFlight = 0;
    for (const [id, sent] of this.api.watchEventsSent()) inFlight += Math.max(0, sent - (this.received.get(id) ?? 0));
    return inFlight > 0 ? `${inFlight} watch event(s) in flight` : undefined;
  }

  stop(): void {
    diagnostics.unsubscribe(WATCH_EVENT_CHANNEL, this.onEvent);
    this.received.clear();
  }
}
