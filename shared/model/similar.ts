// "Did you mean …?" for misspelt keys, names and options.

/** Edit distance where swapping two neighbours counts as one edit (typical typos). */
function distance(a: string, b: string): number {
  if (a === b) return 0;
  const A = a.toLowerCase();
  const B = b.toLowerCase();
  const rows: number[][] = [Array.from({ length: B.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= A.length; i++) {
    const row = [i];
    for (let j = 1; j <= B.length; j++) {
      const cost = A[i - 1] === B[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && A[i - 1] === B[j - 2] && A[i - 2] === B[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      row[j] = d;
    }
    rows.push(row);
  }
  return rows[A.length]![B.length]!;
}

/** The closest candidate within a third of the word's length (at least 1 edit), if any. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  if (word.length > 64) return undefined;
  let best: string | undefined;
  let bestDist = Math.max(1, Math.floor(word.length / 3)) + 1;
  for (const c of candidates) {
    if (Math.abs(c.length - word.length) >= bestDist) continue;
    const d = distance(word, c);
    if (d < bestDist && d < word.length) {
      best = c;
      bestDist = d;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` or nothing. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const c = closest(word, candidates);
  return c === undefined ? '' : ` (did you mean "${c}"?)`;
}
