import type { preHandlerHookHandler, RouteOptions } from 'fastify';

/**
 * `onRoute` hook moving a route's authentication from `preHandler` to `onRequest`, so that it runs before the body is
 * read, parsed (415, 400 INVALID_JSON) or validated (400 VALIDATION_FAILED): an unauthenticated caller gets 401 and
 * learns nothing of a route's body rules, and an unauthenticated body is never parsed (RFC 9110 §15.5.2: the
 * request lacks valid credentials, whatever else is wrong with it). Routes declare `preHandler: auth` (the handler
 * reads `request.merchant`); the composition root applies this to the merchant API.
 * @param auths the authentication hooks the routes were given (compared by identity).
 */
export function authenticateFirst(...auths: preHandlerHookHandler[]) {
  return (route: RouteOptions): void => {
    const pre = route.preHandler;
    const handlers = pre === undefined ? [] : Array.isArray(pre) ? pre : [pre];
    const auth = handlers.find((h) => auths.includes(h));
    if (auth === undefined) return;
    const rest = handlers.filter((h) => h !== auth);
    route.preHandler = rest.length > 0 ? rest : undefined;
    const onRequest =
      route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [auth, ...onRequest];
  };
}
