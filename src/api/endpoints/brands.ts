import { type Caller, callJson, callOpen, describe, type OpenResult, seg } from '../caller.ts';
import { fetchAll } from '../pagination.ts';
import { type CallOptions, expectOk } from '../request.ts';
import { type Brand, type BrandCreated, brandCreatedSchema, brandSchema } from '../schemas.ts';

export interface BrandInput {
  readonly name: string;
  readonly description?: string;
}

export interface BrandsApi {
  /** GET /brands */
  list(options?: CallOptions): Promise<Brand[]>;
  /** POST /brands (never resent: a resend could create the brand twice). */
  create(input: BrandInput, options?: CallOptions): Promise<BrandCreated>;
  /** PUT /brands/{id}; the answer's body is not shown by the spec and is returned as sent. */
  update(id: number, input: BrandInput, options?: CallOptions): Promise<OpenResult>;
  /**
   * DELETE /brands/{id}. When an earlier attempt of this call went unanswered, a 404 means that
   * attempt deleted it: `{ status: 404, alreadyGone: true }`.
   */
  delete(id: number, options?: CallOptions): Promise<OpenResult & { alreadyGone?: boolean }>;
}

export function brandsApi(caller: Caller): BrandsApi {
  return {
    list: (options) => fetchAll(caller, { method: 'GET', path: 'brands' }, brandSchema, options),
    create: (input, options) =>
      callJson(
        caller,
        { method: 'POST', path: 'brands', json: input, resend: 'never' },
        brandCreatedSchema,
        options,
      ),
    update: (id, input, options) =>
      callOpen(
        caller,
        { method: 'PUT', path: `brands/${seg(id)}`, json: input, resend: 'always' },
        options,
      ),
    async delete(id, options) {
      const spec = { method: 'DELETE', path: `brands/${seg(id)}`, resend: 'always' } as const;
      const response = await caller.send(spec, options);
      if (response.status === 404 && response.resentAfterNoAnswer) {
        return { status: 404, body: response.body, alreadyGone: true };
      }
      expectOk(response, describe(spec));
      return { status: response.status, body: response.body };
    },
  };
}
