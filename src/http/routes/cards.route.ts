import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { StoredCardService } from '../../domain/cards/stored-card-service.js';
import { merchantOf } from '../auth/authenticate.js';
import { ProblemResponses } from './payment.schemas.js';

export interface CardRoutesOptions {
  storedCards: StoredCardService;
  auth: preHandlerHookHandler;
}

const CardParamsSchema = Type.Object(
  {
    pseudoCardNumber: Type.String({
      pattern: '^[0-9]{12,19}$',
      description: 'The pseudo card number of a stored card (paymentMethods.card.pseudoCardNumber)',
    }),
  },
  { additionalProperties: false },
);

/**
 * `DELETE {prefix}/cards/{pseudoCardNumber}`: the merchant deletes a stored card (docs/stored-credentials.md). The
 * vault erases the encrypted card at once; later payments with the pseudo card number fail with 20050002.
 * 204 on success, also when the card was deleted before (RFC 9110 §9.2.2: DELETE is idempotent); 404
 * STORED_CARD_NOT_FOUND for an unknown pseudo card number and for another merchant's, alike.
 */
export async function cardRoutes(fastify: FastifyInstance, opts: CardRoutesOptions) {
  const { storedCards, auth } = opts;
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.delete(
    '/cards/:pseudoCardNumber',
    {
      preHandler: auth,
      schema: {
        summary: 'Delete a stored card; later payments with its pseudo card number fail (20050002)',
        tags: ['cards'],
        params: CardParamsSchema,
        response: { 204: Type.Null(), ...ProblemResponses },
      },
    },
    async (request, reply) => {
      const { pseudoCardNumber } = request.params;
      await storedCards.delete(merchantOf(request).merchantId, pseudoCardNumber);
      return reply.status(204).send(null);
    },
  );
}
