// Which catalogue revision this process has seen written. The category tree is cached per
// instance and normally re-validated against the database's revision at most every
// REVALIDATE_MS; a write made by this very process (an import, the demo loader) is noticed at
// once through this counter, so a caller never reads its own write stale.
let localWrites = 0

export const REVALIDATE_MS = 100

export function noteCatalogueWrite(): void {
  localWrites++
}

export const catalogueWritesInProcess = () => localWrites
