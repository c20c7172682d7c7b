/**
 * Response headers and request guards that apply to every dashboard route.
 *
 * The review page shows mail written by strangers, so its Content-Security-Policy allows nothing but the page's own
 * stylesheet: no script at all, no images, no frames, forms only to the dashboard itself. Escaping (see `html.ts`)
 * is the first line of defence; the policy is the second, should an escape ever be missed.
 */
import type { NextFunction, Request, Response } from 'express';

/** The policy of the review page, the API and everything else the dashboard itself renders. */
export const REVIEW_CSP = "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Bull Board's UI is a React app: its scripts are served from its own static route, and it uses inline style
 * attributes. No other host: its Google Fonts link is removed (see `withoutExternalFonts` in app.ts). It shows only
 * job ids and queue state, never mail content (jobs carry ticket ids).
 */
export const BULL_BOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
].join('; ');

/** Sets the security headers; `csp` is the policy of the routes behind it. */
export function securityHeaders(csp: string) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    res.set({
      'Content-Security-Policy': csp,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      // For browsers that predate frame-ancestors.
      'X-Frame-Options': 'DENY',
      // Pages show personal data; no shared cache may keep them.
      'Cache-Control': 'no-store',
    });
    next();
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses state-changing requests a browser marks as coming from another site. Defence in depth for routes without a
 * CSRF token of their own (Bull Board's actions); clients other than browsers send neither header and pass.
 *
 * `Sec-Fetch-Site` decides when present (all current browsers send it). Otherwise a foreign `Origin` refuses; an
 * `Origin: null` does not, because browsers send exactly that for our own form posts under `Referrer-Policy:
 * no-referrer`.
 */
export function sameOriginGuard(req: Request, res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method)) {
    next();
    return;
  }
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  let crossSite: boolean;
  if (typeof site === 'string') crossSite = site !== 'same-origin' && site !== 'none';
  else if (typeof origin === 'string' && origin !== 'null') crossSite = hostOf(origin) !== req.headers.host;
  else crossSite = false;
  if (!crossSite) {
    next();
    return;
  }
  res.status(403).type('text/plain; charset=utf-8').send('Cross-site requests are not accepted\n');
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/**
 * Guards the JSON API's state-changing calls against cross-site requests that carry the browser's cached Basic
 * credentials. A cross-site page can send a POST without a preflight only with a "simple" Content-Type (a form's
 * `application/x-www-form-urlencoded`, `multipart/form-data`, `text/plain`) and without custom headers, and over plain
 * HTTP to a non-loopback host the browser may add neither `Sec-Fetch-Site` nor a real `Origin`. So every such call
 * must declare `Content-Type: application/json` (an empty body is fine) or carry an `X-Requested-With` header, both of
 * which force a preflight the dashboard never grants; and `Origin: null` (sandboxed frames, data: pages, redirects)
 * counts as cross-site here, since the API has no same-origin caller that sends it.
 */
export function apiRequestGuard(req: Request, res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method)) {
    next();
    return;
  }
  if (req.headers.origin === 'null') {
    res.status(403).json({ error: 'Cross-site requests are not accepted (Origin: null)' });
    return;
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || req.headers['x-requested-with'] !== undefined) {
    next();
    return;
  }
  res.status(415).json({ error: 'State-changing API calls need Content-Type: application/json (an empty body or {} is fine) or an X-Requested-With header' });
}
