import { get, type IncomingMessage } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeJson, startHarness, type Harness } from './fixtures';

/** A raw watch on nodes: resolves once the server has answered 200 (the stream is open). */
function openWatch(h: Harness): Promise<{ res: IncomingMessage; lines: string[] }> {
  return new Promise((resolve, reject) => {
    const req = get(`${h.server.url}/api/v1/nodes?watch=true`, { headers: { authorization: 'Bearer test-token' } }, (res) => {
      const lines: string[] = [];
      res.setEncoding('utf8');
      res.on('data', (c: string) => lines.push(...c.split('\n').filter(Boolean)));
      res.on('error', () => {});
      resolve({ res, lines });
    });
    req.on('error', reject);
  });
}

const tick = (ms = 50) => new Promise((r) => setTimeout(r, ms));

describe('fake API server: watches dropped while writes are in flight', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
  });
  afterEach(async () => {
    await h.close();
  });

  it('should take writes in the same tick as the watches are dropped, without an error', async () => {
    // Prepare
    await openWatch(h);
    await openWatch(h);
    // Act
    const dropped = h.api.dropWatches();
    const written = ['a', 'b', 'c'].map((n) => h.api.apply(nodeJson(n)).metadata.name);
    await tick();
    // Assess
    expect(dropped).toBe(2);
    expect(written).toEqual(['a', 'b', 'c']);
    expect(h.api.dropWatches()).toBe(0);
  });

  it('should forget a watch whose client hung up during delivery, and keep serving the others', async () => {
    // Prepare
    const gone = await openWatch(h);
    const stays = await openWatch(h);
    // Act
    gone.res.socket.destroy();
    for (let i = 0; i < 50; i++) h.api.apply(nodeJson(`n${i}`));
    await tick(100);
    for (let i = 50; i < 60; i++) h.api.apply(nodeJson(`n${i}`));
    await tick();
    // Assess
    expect(stays.lines.filter((l) => l.includes('"ADDED"'))).toHaveLength(60);
    expect(h.api.dropWatches()).toBe(1);
  });

  it('should end the stream of a client that stopped reading once 32 MiB wait for it, as kube-apiserver closes a slow watcher', async () => {
    // Prepare: a watch whose client reads nothing more
    const w = await openWatch(h);
    w.res.pause();
    let ended = false;
    w.res.on('end', () => (ended = true));
    w.res.on('close', () => (ended = true));
    // Act: node updates until the stream ends, up to ~125 MiB (the kernel's socket buffers on loopback may take tens of
    // MiB before anything waits in the server's own buffer)
    const big = 'x'.repeat(200 * 1024);
    for (let i = 0; i < 640 && !ended; i++) {
      const node = nodeJson(`n${i}`);
      h.api.apply({ ...node, metadata: { ...node.metadata, annotations: { big } } });
      await tick(1);
    }
    // (on a busy machine the server may still be writing the last updates: give it time while the client still reads nothing)
    for (let i = 0; i < 100 && !ended; i++) await tick(50);
    // Once reading again, the client takes what the kernel and the server held (tens of MiB) before it sees the end.
    w.res.resume();
    for (let i = 0; i < 200 && !ended; i++) await tick(50);
    // Assess
    expect(ended).toBe(true);
  });
});
