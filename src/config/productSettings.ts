import { int, reserve, setting, text } from './settingTypes.ts';

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
  productsReserve: setting(
    'API_PRODUCTS_RESERVE',
    reserve,
    '8.33%',
    'What product creations leave of the hourly budget for shipments, polls and stock pushes, on top of API_STOCK_RESERVE and API_POLL_RESERVE: a share of API_REQUESTS_PER_HOUR (8.33% is 300 of 3,600: creations leave 1,200) or a whole number of calls. A value that leaves creations nothing stops the start (exit 78).',
  ),
} as const;
