// How the benchmarks print: aligned tables and readable numbers, all on stdout.

export function heading(title: string): void {
  console.log(`\n== ${title} ==`);
}

/** Columns after the first are right-aligned (they hold numbers). */
export function printTable(headers: readonly string[], rows: readonly (readonly string[])[]): void {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ")
      .trimEnd();
  console.log(line(headers));
  console.log(widths.map((width) => "-".repeat(width)).join("  "));
  for (const row of rows) console.log(line(row));
}

export function printSummary(name: string, lines: readonly string[]): void {
  console.log(`\n${name} summary:`);
  for (const text of lines) console.log(`  ${text}`);
}

export function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function ms(value: number | undefined): string {
  if (value === undefined) return "-";
  if (value >= 1000) return `${(value / 1000).toFixed(2)} s`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  return `${(value * 1000).toFixed(2)} µs`;
}

export function ratio(numerator: number, denominator: number): string {
  const value = numerator / denominator;
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)}x`;
}

export function perSecond(items: number, milliseconds: number): string {
  return `${count((items * 1000) / milliseconds)}/s`;
}

/** `part` as a whole percentage of `whole`. */
export function percent(part: number, whole: number): string {
  return `${((100 * part) / whole).toFixed(0)}%`;
}

export function mebibytes(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
}
