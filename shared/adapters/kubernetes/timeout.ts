/** A promise raced against a timer on the injected clock; the timer is cancelled as soon as either settles. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export async function firstOrTimeout<T>(work: Promise<T>, ms: number, sleep: Sleep): Promise<{ ok: true; value: T } | { ok: false }> {
  const settled = new AbortController();
  const timer = sleep(ms, settled.signal).then(() => ({ ok: false as const }));
  try {
    return await Promise.race([work.then((value) => ({ ok: true as const, value })), timer]);
  } finally {
    settled.abort();
  }
}
