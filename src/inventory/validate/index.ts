export * from './fields.ts';
export * from './kinds.ts';
export { NOT_WHOLE, parseQuantity, type QuantityOptions, type QuantityResult } from './quantity.ts';
export * from './rows.ts';
