/** Runs `work` and hands its real duration (seconds) to `observe`, whether it succeeds or throws. */
export async function timed<T>(work: () => Promise<T>, observe: (seconds: number) => void): Promise<T> {
  const start = performance.now();
  try {
    return await work();
  } finally {
    observe((performance.now() - start) / 1000);
  }
}
