/**
 * A scenario at another size: every fleet `count`, Deployment `replicas` (objects and scale events) and interruption
 * `count` multiplied by `factor` (at least 1 each), the name suffixed with the factor. How `scale-5k` runs at 1/25 in
 * the tests and at 500 / 2,000 / 5,000 nodes in `npm run bench -- scale`.
 */
export function resizeScenario(text: string, factor: number): string {
  if (!(factor > 0)) throw new RangeError(`resizeScenario: factor must be a positive number, got ${factor}`);
  if (factor === 1) return text;
  const times = (n: string) => String(Math.max(1, Math.round(Number(n) * factor)));
  return text
    .replace(/^name: (.+)$/m, (_, name: string) => `name: ${name.trim()}-x${factor}`)
    .replace(/\b(count|replicas): (\d+)/g, (_, key: string, n: string) => `${key}: ${times(n)}`);
}
