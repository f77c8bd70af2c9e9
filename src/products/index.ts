/**
 * New products: the products files' rows (read by ingestion) created on the portal once, with
 * their brands and their stock at creation, after their references were checked. The only door
 * into src/products/ for the other folders (.dependency-cruiser.cjs): the jobs call the service
 * `createProducts` builds; ingestion gets its reference data through the daemon's wiring.
 */

export {
  CREATION_SLICE_MS,
  type CreationOutcome,
  createProducts,
  type Products,
  type ProductsEdges,
  type ProductsWorkDue,
} from './productsService.ts';
export { ReferencesUnavailableError } from './referenceData.ts';
