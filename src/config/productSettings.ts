import { int, ms, reserve, setting, text } from './settingTypes.ts';

/**
 * The settings of the new-products flow (docs/products.md), part of the one table of
 * settings.ts.
 */
export const productSettings = {
  catalogueMaxNew: setting(
    'CATALOGUE_MAX_NEW',
    int(0),
    100,
    'Guard rails: a products file that would create more than this many products on the portal is held (not applied) until an operator releases or rejects it, as a stock file is. Creation cannot be undone through the API.',
  ),
  imageType: setting(
    'IMAGE_TYPE',
    text.min(1, 'must not be empty'),
    'lifestyle',
    'The `type` of the images of a products file row that gives none (its `image_type` column).',
  ),
  catalogueReviewIntervalMs: setting(
    'CATALOGUE_REVIEW_INTERVAL_MS',
    ms(1000, 86_400_000),
    300_000,
    "How soon the platform's review of a product the daemon created is noticed (activated or declined), in milliseconds: while some created product is undecided, the portal is asked this often (its lists filtered by platform status, or each undecided product where that costs fewer calls). At least 1,000. At most 86,400,000 (a day).",
  ),
  productsReserve: setting(
    'API_PRODUCTS_RESERVE',
    reserve,
    '8.33%',
    'What product creations leave of the hourly budget for shipments, polls and stock pushes, on top of API_STOCK_RESERVE and API_POLL_RESERVE: a share of API_REQUESTS_PER_HOUR (8.33% is 300 of 3,600: creations leave 1,200) or a whole number of calls. A value that leaves creations nothing stops the start (exit 78).',
  ),
} as const;
