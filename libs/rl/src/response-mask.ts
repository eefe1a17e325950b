// Rollout data on the host is kept as number[][] rows of shape [B][T]: one row per response, right padded,
// with a 0/1 mask that is a run of 1s followed by 0s (length = the response's number of tokens).

/** The number of real tokens of each row [B]; throws unless every row is ones then zeros. */
export function responseLengths(mask: readonly (readonly number[])[], fn = 'responseLengths'): number[] {
  return mask.map((row, b) => {
    let n = 0;
    while (n < row.length && row[n] === 1) n++;
    for (let t = n; t < row.length; t++) {
      if (row[t] !== 0) {
        throw new Error(`${fn}: mask row ${b} is not right padded (value ${row[t]} at position ${t} after a 0); expected 1s then 0s`);
      }
    }
    return n;
  });
}

/** Throws unless x has the shape of mask ([B][T]). */
export function checkRows(fn: string, name: string, x: readonly (readonly number[])[], mask: readonly (readonly number[])[]): void {
  if (x.length !== mask.length) throw new Error(`${fn}: ${name} has ${x.length} rows, the mask has ${mask.length}`);
  x.forEach((row, b) => {
    if (row.length !== mask[b].length) throw new Error(`${fn}: ${name} row ${b} has ${row.length} values, the mask row has ${mask[b].length}`);
  });
}

/** A [B][T] matrix of zeros shaped like mask. */
export function zerosLike(mask: readonly (readonly number[])[]): number[][] {
  return mask.map((row) => new Array<number>(row.length).fill(0));
}
