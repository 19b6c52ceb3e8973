/**
 * A Markdown table as lines: columns padded to their widest cell, numbers right-aligned, the
 * columns listed in `leftAligned` (default: the first) left-aligned.
 */
export function formatTable(header: string[], rows: string[][], leftAligned: number[] = [0]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const format = (cells: string[]) =>
    `| ${cells.map((cell, column) => (leftAligned.includes(column) ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ')} |`;
  return [format(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(format)];
}
