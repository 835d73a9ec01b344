// Errors of the control plane: each carries the HTTP status the admin API answers with (4xx for
// bad input or a refused operation), so the three doors report the same thing the same way.

export class ControlError extends Error {
  constructor(
    /** HTTP status: 400 bad input, 404 unknown group/route, 405 wrong method, 409 refused in the
     *  group's current state or mode, 413 body too large. */
    readonly status: number,
    message: string,
    /** Extra JSON put next to `error` in an HTTP answer (e.g. a MembershipChangeResult). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ControlError';
  }
}

export const badRequest = (message: string): ControlError => new ControlError(400, message);
export const notFound = (message: string): ControlError => new ControlError(404, message);
export const conflict = (message: string, details?: Record<string, unknown>): ControlError => new ControlError(409, message, details);
