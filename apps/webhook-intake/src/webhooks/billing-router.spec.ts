import { INTERNAL_TOKEN_HEADER, REQUEST_ID_HEADER, type RoutedProviderEvent } from '@lib/contracts';
import { generateInternalKeys, InternalTokenCodec } from '@lib/identity';
import { runWithRequestId } from '@lib/runtime';
import type { Socket } from 'node:net';
import {
  answerJson,
  type ScriptedAnswer,
  scriptedUpstreamForSuite,
  unreachableUrl,
} from '../../../../test/support/scripted-upstream';
import { BillingRouter, RoutingError } from './billing-router';

const EVENT = {
  event_id: 'evt_1',
  event_type: 'PAYMENT.DONE',
  data: { paymentKey: 'pay_1', orderId: 'order_1', status: 'DONE', approvedAt: '2026-11-24T00:00:00Z' },
} as unknown as RoutedProviderEvent;

describe(BillingRouter.name, () => {
  const keys = generateInternalKeys();
  const codec = InternalTokenCodec.fromKeySet('webhook-intake', keys);
  const billing = InternalTokenCodec.fromKeySet('billing', keys);
  let handler: ScriptedAnswer;
  const url = scriptedUpstreamForSuite((req, body, res, nth) => handler(req, body, res, nth));

  it('posts the event as the intake, with its request id, and returns billing’s outcome', async () => {
    const seen: { body: unknown; token: string; requestId: unknown }[] = [];
    handler = (req, body, res) => {
      seen.push({
        body: JSON.parse(body),
        token: req.headers[INTERNAL_TOKEN_HEADER] as string,
        requestId: req.headers[REQUEST_ID_HEADER],
      });
      answerJson(res, 200, { outcome: 'applied', detail: 'settled' });
    };
    const router = new BillingRouter(url(), codec);

    const outcome = await runWithRequestId('req-42', () => router.route(EVENT));

    expect(outcome).toEqual({ outcome: 'applied', detail: 'settled' });
    expect(seen).toHaveLength(1);
    expect(seen[0].body).toEqual(EVENT);
    expect(seen[0].requestId).toBe('req-42');
    await expect(billing.verify(seen[0].token)).resolves.toEqual({
      kind: 'service',
      service: 'webhook-intake',
    });
  });

  it('keeps the path of a billing URL that has one', async () => {
    const paths: (string | undefined)[] = [];
    handler = (req, _body, res) => {
      paths.push(req.url);
      answerJson(res, 200, { outcome: 'applied', detail: 'ok' });
    };
    await new BillingRouter(`${url()}/billing/`, codec).route(EVENT);
    await new BillingRouter(url(), codec).route(EVENT);
    expect(paths).toEqual(['/billing/internal/v1/provider-events', '/internal/v1/provider-events']);
  });

  it('calls a refusal of the event itself (400, 404, 422) refused, and anything else a failure that may pass', async () => {
    const router = new BillingRouter(url(), codec);
    handler = (_req, _body, res) =>
      answerJson(res, 422, { code: 'ErrValidation', detail: 'orderId is missing' });
    const refused = await router.route(EVENT).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RoutingError);
    expect(refused).toMatchObject({
      refused: true,
      message: 'billing answered 422 ErrValidation orderId is missing',
    });

    for (const status of [503, 401, 302]) {
      handler = (_req, _body, res) => answerJson(res, status, { code: 'ErrUnavailable' });
      await expect(router.route(EVENT)).rejects.toMatchObject({
        refused: false,
        message: `billing answered ${status} ErrUnavailable`,
      });
    }
    // A 200 that is not an outcome is not billing's answer.
    handler = (_req, _body, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    await expect(router.route(EVENT)).rejects.toMatchObject({
      refused: false,
      message: 'billing answered 200',
    });
  });

  it('gives up at its deadline without sending the event again', async () => {
    let received = 0;
    handler = () => {
      received += 1; // never answers
    };
    const router = new BillingRouter(url(), codec, 150);

    await expect(router.route(EVENT)).rejects.toThrow(
      new RoutingError('billing did not answer within 150 ms'),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(received).toBe(1);
  });

  it('says so when billing cannot be reached', async () => {
    await expect(new BillingRouter(await unreachableUrl(), codec).route(EVENT)).rejects.toMatchObject({
      refused: false,
      message: 'billing did not answer (ECONNREFUSED)',
    });
  });

  it('sends again once, on a new connection, when a kept-alive one is reset under the request', async () => {
    const sockets = new Set<Socket>();
    handler = (req, _body, res, nthOnSocket) => {
      sockets.add(req.socket);
      // The second request on a connection finds it closed: what a server's idle timeout does to a
      // request that went out on it at that moment.
      if (nthOnSocket > 1) req.socket.resetAndDestroy();
      else answerJson(res, 200, { outcome: 'applied', detail: 'ok' });
    };
    const router = new BillingRouter(url(), codec);

    await expect(router.route(EVENT)).resolves.toMatchObject({ outcome: 'applied' });
    await expect(router.route(EVENT)).resolves.toMatchObject({ outcome: 'applied' });
    expect(sockets.size).toBe(2);
  });
});
