/** Errors the simulator answers with. The body shape is the spec's general error body. */

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  /** The field at fault (the spec's error body always names one). */
  readonly field: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    field: string,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.field = field;
    this.headers = headers;
  }

  body(): { error: { code: string; message: string; field: string } } {
    return { error: { code: this.code, message: this.message, field: this.field } };
  }
}

export function invalidParameter(field: string, message: string): HttpError {
  return new HttpError(400, 'invalid_parameter', message, field);
}

export function notFound(field: string, message: string): HttpError {
  return new HttpError(404, 'not_found', message, field);
}

export function conflict(code: string, field: string, message: string): HttpError {
  return new HttpError(409, code, message, field);
}

export function alreadyExists(field: string, message: string): HttpError {
  return new HttpError(422, 'already_exists', message, field);
}

/** The spec's 429 body. */
export const TOO_MANY_REQUESTS_BODY = { success: false, message: 'Too Many Requests' } as const;

/** The HTML page answered by the 500 fault (deliberately not JSON). */
export const INTERNAL_ERROR_HTML =
  '<!DOCTYPE html>\n<html><head><title>500 Internal Server Error</title></head>' +
  '<body><h1>500 Internal Server Error</h1><p>The server encountered an internal error.</p></body></html>\n';
