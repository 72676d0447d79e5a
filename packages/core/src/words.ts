/** "1 target", "3 targets", "0 runs": a count with its noun in the right number. */
export function countOf(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}
