// /api/payments/… and /api/user/subscription (contract sections 6 and 8). Webhooks carry no
// bearer token: the provider's signature over the raw body authenticates them, so those routes
// read the body as text themselves (parse: 'none') and hand it over unparsed.
import { Elysia } from 'elysia'
import type { AuthGuard } from '../../http/auth'
import { readBodyText } from '../../http/body'
import { ACTS_ON_GET } from '../../http/routes-index'
import { NO_STORE, problems } from '../../http/schemas'
import { CardCheckout, CheckoutBody, ORDER_ID_MAX, ReturnQuery, Subscription, WalletCheckout, WebhookReceipt, webhookRequestBody } from './model'
import type { BillingService } from './service'

export function billingRoutes({ billing, guard }: { billing: BillingService; guard: AuthGuard }) {
  return new Elysia({ name: 'billing' })
    .use(guard)
    .post('/api/payments/checkout', ({ user, body }) => billing.checkoutCard(user, body.tier), {
      ...guard.jsonBody({ auth: true }, CheckoutBody),
      response: { 200: CardCheckout, ...problems(400, 401, 403, 409, 413, 415, 422, 502, 503) },
      detail: {
        tags: ['payments'],
        summary: 'Start a card checkout (Stripe): subscription for starter and pro, one payment for lifetime',
        description:
          'Answers the hosted checkout page to send the browser to. The tier changes when the provider’s webhook arrives. A tier the user already has or exceeds → 409 already_subscribed; card payments not configured → 503 payments_not_configured; the provider unreachable → 502 upstream_unavailable.',
        security: [{ bearer: [] }],
      },
    })
    .post('/api/payments/altpay/checkout', ({ user, body }) => billing.checkoutWallet(user, body.tier), {
      ...guard.jsonBody({ auth: true }, CheckoutBody),
      response: { 200: WalletCheckout, ...problems(400, 401, 403, 409, 413, 415, 422, 502, 503) },
      detail: {
        tags: ['payments'],
        summary: 'Start a wallet checkout (PayPal): an order for lifetime, a subscription for starter and pro',
        description: 'Answers the approval page to send the browser to. Errors as for the card checkout.',
        security: [{ bearer: [] }],
      },
    })
    .get(
      '/api/payments/altpay/return',
      async ({ query, set }) => {
        set.status = 302
        set.headers.location = await billing.walletReturn(query.token !== undefined && query.token.length <= ORDER_ID_MAX ? query.token : undefined)
        Object.assign(set.headers, NO_STORE)
      },
      {
        query: ReturnQuery,
        detail: {
          ...ACTS_ON_GET,
          tags: ['payments'],
          summary: 'Where PayPal sends the browser after approving a lifetime order: captures it, then redirects',
          description:
            '302 to FRONTEND_URL/billing?status=success (paid and recorded), status=pending (PayPal holds the payment; the webhook completes it) or status=error.',
          responses: { 302: { description: 'redirect to the frontend’s billing page' } },
        },
      },
    )
    .post(
      '/api/payments/webhook',
      async ({ request }) => ({
        received: true as const,
        outcome: await billing.cardWebhook(await readBodyText(request), request.headers.get('stripe-signature')),
      }),
      {
        parse: 'none',
        response: { 200: WebhookReceipt, ...problems(400, 413, 422, 500, 503) },
        detail: {
          tags: ['payments'],
          summary: 'Card provider (Stripe) events, signed with Stripe-Signature',
          description:
            'No bearer token: the signature over the raw body (300 s tolerance) authenticates the delivery; missing or wrong → 400 invalid_signature. A repeat of an event id answers 200 and changes nothing; a processing failure answers 5xx so the provider retries.',
          requestBody: webhookRequestBody('a Stripe event: {id, type, created, data: {object}}'),
        },
      },
    )
    .post(
      '/api/payments/altpay/webhook',
      async ({ request }) => {
        const h = request.headers
        const signature = {
          transmissionId: h.get('paypal-transmission-id'),
          transmissionTime: h.get('paypal-transmission-time'),
          transmissionSig: h.get('paypal-transmission-sig'),
          certUrl: h.get('paypal-cert-url'),
          authAlgo: h.get('paypal-auth-algo'),
        }
        return { received: true as const, outcome: await billing.walletWebhook(await readBodyText(request), signature) }
      },
      {
        parse: 'none',
        response: { 200: WebhookReceipt, ...problems(400, 413, 422, 500, 502, 503) },
        detail: {
          tags: ['payments'],
          summary: 'Wallet provider (PayPal) events, verified offline with PayPal’s certificate',
          description:
            'PAYPAL-TRANSMISSION-ID, -TIME, -SIG, PAYPAL-CERT-URL (only under PAYPAL_CERT_URL_PREFIXES) and PAYPAL-AUTH-ALGO; missing or wrong → 400 invalid_signature.',
          requestBody: webhookRequestBody('a PayPal event: {id, event_type, create_time, resource}'),
        },
      },
    )
    .get('/api/user/subscription', ({ user }) => billing.subscription(user), {
      auth: true,
      response: { 200: Subscription, ...problems(401, 403) },
      detail: { tags: ['payments'], summary: 'The user’s tier and the subscription behind it', security: [{ bearer: [] }] },
    })
}
