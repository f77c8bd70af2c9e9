/** Brands: GET/POST /brands, PUT/DELETE /brands/{id}. */
import {
  type ApiContext,
  type ApiRequest,
  type ApiResponse,
  param,
  type RouteDef,
} from '../context.ts';
import { notFound } from '../httpError.ts';
import { objectBody, optionalString, requiredString } from '../params.ts';

function brandId(req: ApiRequest): number {
  const raw = param(req, 'id');
  const id = /^\d{1,9}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isInteger(id)) throw notFound('id', `Brand ${raw} not found.`);
  return id;
}

function list(_req: ApiRequest, ctx: ApiContext): ApiResponse {
  return { status: 200, body: { data: ctx.store.brands.list() } };
}

function create(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const body = objectBody(req.body);
  const name = requiredString(body, 'name').trim();
  const description = optionalString(body, 'description') ?? null;
  const brand = ctx.store.brands.add(name, description);
  return {
    status: 201,
    body: {
      message: 'Brand created successfully',
      brand_id: brand.id,
      name: brand.name,
      description: brand.description,
      image: brand.image,
    },
  };
}

function update(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const id = brandId(req);
  const body = objectBody(req.body);
  const name = requiredString(body, 'name').trim();
  const description = optionalString(body, 'description');
  if (!ctx.store.brands.get(id)) throw notFound('id', `Brand ${id} not found.`);
  const brand = ctx.store.brands.update(id, name, description);
  return { status: 200, body: { message: 'Brand updated successfully', data: brand } };
}

function remove(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const id = brandId(req);
  ctx.store.brands.delete(id);
  return { status: 200, body: { message: 'Brand deleted successfully' } };
}

export const brandRoutes: RouteDef[] = [
  { method: 'GET', pattern: '/brands', auth: true, handler: list },
  { method: 'POST', pattern: '/brands', auth: true, handler: create },
  { method: 'PUT', pattern: '/brands/:id', auth: true, handler: update },
  { method: 'DELETE', pattern: '/brands/:id', auth: true, handler: remove },
];
