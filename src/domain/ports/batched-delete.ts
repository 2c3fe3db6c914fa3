/**
 * Drains a batched delete: calls `deleteBatch(limit)` — a storage call that deletes at most `limit` rows in one short
 * transaction and returns how many it deleted — until a call deletes fewer than `limit` (nothing is left). The
 * retention sweeps use it (notifications, finished 3-D Secure states), so payments never wait behind one long delete.
 * @returns how many rows were deleted in all. @throws what `deleteBatch` throws (the batches before it stay deleted).
 */
export async function deleteInBatches(deleteBatch: (limit: number) => Promise<number>, limit: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(limit);
    total += deleted;
    if (deleted < limit) return total;
  }
}
