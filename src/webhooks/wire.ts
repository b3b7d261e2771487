// Wire schema of POST /updateWebhookURL.do (docs/webhooks.md "Registering").
import Type from 'typebox';
import { OrNull } from '../wire.js';

export const UpdateWebhookUrlRequest = Type.Object({
  url: Type.String({ maxLength: 2048, description: 'http(s) URL receiving the webhook POSTs (https only outside sandbox mode)' }),
  rotateSecret: Type.Optional(
    OrNull(
      Type.Boolean({
        description:
          "postbook's: true makes a new signing secret and answers it (the old one stops at once) — for a client that lost the first answer, or wants a new secret",
      }),
    ),
  ),
});

export const UpdateWebhookUrlResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  webhookSecret: Type.Union([Type.String(), Type.Null()], {
    description: 'the signing secret, given once: with the first URL of the client (later calls answer null)',
  }),
});
