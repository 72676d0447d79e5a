/**
 * Axis ticks at round values: 0, 20, 40 … or, for bytes, 0, 25 MiB, 50 MiB … (binary units, as
 * `formatBytes` prints them), never 57.22 / 114.44 MiB.
 */
export function niceTicks(max: number, options: { binary?: boolean; count?: number } = {}): number[] {
  const target = options.count ?? 5;
  if (!(max > 0) || !Number.isFinite(max)) return [0, 1];
  // Binary values step in powers of 1024 first (KiB, MiB, GiB), then in round numbers of that unit.
  const unit = options.binary ? 1024 ** Math.max(0, Math.floor(Math.log(max) / Math.log(1024))) : 1;
  const scaled = max / unit;
  const raw = scaled / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let i = 0; ; i++) {
    const v = +(i * step).toPrecision(12);
    ticks.push(v * unit);
    if (v >= scaled - 1e-9) return ticks;
  }
}
