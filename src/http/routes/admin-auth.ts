import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendProblem } from '../problem.js';

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/**
 * Hook authenticating the support desk on `/admin/v1` by `authorization: Bearer <KASSA_ADMIN_TOKEN>` (DESIGN.md §3,
 * §7). The header is compared in constant time (SHA-256 of both sides, then `timingSafeEqual`, so neither the content
 * nor the length of the token leaks through timing). Merchant credentials (Basic, merchant access tokens) are not
 * admin tokens. Every failure answers the same 401 UNAUTHORIZED.
 * @param adminToken the configured token (≥ 32 characters, checked by the config schema).
 */
export function adminAuth(adminToken: string) {
  const expected = sha256(`Bearer ${adminToken}`);
  return async function authenticateAdmin(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const given = request.headers.authorization ?? '';
    if (!timingSafeEqual(sha256(given), expected)) {
      reply.header('www-authenticate', 'Bearer realm="kassa-admin"');
      await sendProblem(request, reply, 'UNAUTHORIZED', 'missing or invalid admin token');
    }
  };
}
