// Prints the benchmark tables: rows of cells, the first column left-aligned, the others right;
// a row of empty cells is a blank line.

/** Prints `title`, then `rows` aligned in columns. */
export function printTable(title: string, rows: readonly string[][]): void {
  const columns = Math.max(...rows.map((row) => row.length));
  const widths = Array.from({ length: columns }, (_, column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  console.log(`\n${title}\n`);
  for (const row of rows) {
    if (row.every((cell) => cell === '')) {
      console.log('');
      continue;
    }
    console.log(
      row
        .map((cell, column) =>
          column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!),
        )
        .join('  '),
    );
  }
}
