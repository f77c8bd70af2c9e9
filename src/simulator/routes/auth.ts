/** POST /login. Its own rate limit (loginsPerHour) is applied by the server before this runs. */
import type { ApiContext, ApiRequest, ApiResponse, RouteDef } from '../context.ts';
import { HttpError } from '../httpError.ts';
import { objectBody, requiredString } from '../params.ts';

function login(req: ApiRequest, ctx: ApiContext): ApiResponse {
  const body = objectBody(req.body);
  const email = requiredString(body, 'email');
  const password = requiredString(body, 'password');
  if (email.toLowerCase() !== ctx.auth.email.toLowerCase() || password !== ctx.auth.password) {
    throw new HttpError(
      401,
      'invalid_credentials',
      'These credentials do not match our records.',
      'email',
    );
  }
  return {
    status: 200,
    body: {
      message: 'Login successful',
      status: 'success',
      data: { token: ctx.auth.issueToken() },
    },
  };
}

export const authRoutes: RouteDef[] = [
  { method: 'POST', pattern: '/login', auth: false, handler: login },
];
