import type { FastifyRequest } from 'fastify';

/** A hosted page's form or query: each field one string; anything else is absent. */
export type Form = Record<string, string | undefined>;

/**
 * The string fields of a parsed form body or query string (`@fastify/formbody`, Fastify's query parser). A name
 * given twice (an array) or a non-string is dropped: every field of Kassa's pages is one value, and a page that
 * finds a field missing answers as it does for any incomplete form.
 */
export function formFields(source: unknown): Form {
  if (typeof source !== 'object' || source === null) return {};
  const form: Form = {};
  for (const [name, value] of Object.entries(source)) if (typeof value === 'string') form[name] = value;
  return form;
}

/** A path parameter of the route (always a string in Fastify's router; '' if the route has no such parameter). */
export function pathParam(request: FastifyRequest, name: string): string {
  return formFields(request.params)[name] ?? '';
}
