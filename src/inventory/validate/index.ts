export * from './fields.ts';
export * from './kinds.ts';
export * from './rows.ts';
