import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas, unwrap } from './client';
import { keys } from './queries';

export type PlanCode = Schemas['PlanDefinition']['code'];
export type PaidPlanCode = Exclude<PlanCode, 'FREE'>;
export type Subscription = Schemas['SubscriptionDetailView'];

/** Billing's query keys: a change invalidates the guild's subscription reads and its licence. */
export const billingKeys = {
  plans: ['plans'] as const,
  subscriptions: (guildId: string) => ['guild', guildId, 'subscriptions'] as const,
  subscription: (id: string) => ['subscription', id] as const,
  payments: (id: string) => ['subscription', id, 'payments'] as const,
  prepare: (guildId: string, plan: PlanCode) => ['guild', guildId, 'prepare', plan] as const,
};

/** The plan catalogue from licensing; it changes only with a release. */
export const usePlans = () =>
  useQuery({
    queryKey: billingKeys.plans,
    queryFn: () => unwrap(api.GET('/api/v1/plans')),
    staleTime: 5 * 60_000,
  });

const LIVE: readonly Subscription['status'][] = ['pending', 'active', 'past_due'];

/**
 * The guild's running subscription (pending, active or past_due), or null on FREE. At most one
 * runs per guild; earlier canceled ones are history.
 */
export const useLiveSubscription = (guildId: string) =>
  useQuery({
    queryKey: billingKeys.subscriptions(guildId),
    queryFn: async () => {
      const page = await unwrap(
        api.GET('/api/v1/guilds/{guildId}/subscriptions', {
          params: { path: { guildId }, query: { limit: 5 } },
        }),
      );
      return page.items.find((item) => LIVE.includes(item.status)) ?? null;
    },
  });

/** One subscription with its next charge; read every 2 s while its first payment is processing. */
export const useSubscription = (id: string | null) =>
  useQuery({
    queryKey: billingKeys.subscription(id ?? ''),
    enabled: id !== null,
    queryFn: () => unwrap(api.GET('/api/v1/subscriptions/{id}', { params: { path: { id: id! } } })),
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? 2_000 : false),
    refetchIntervalInBackground: true,
  });

export const usePayments = (id: string | null) =>
  useQuery({
    queryKey: billingKeys.payments(id ?? ''),
    enabled: id !== null,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/subscriptions/{id}/payments', {
          params: { path: { id: id! }, query: { limit: 50 } },
        }),
      ),
  });

/** What the card widget needs (docs/behaviour.md §4.4), and the payer's card on file. */
export const usePrepare = (guildId: string, plan: PlanCode, enabled: boolean) =>
  useQuery({
    queryKey: billingKeys.prepare(guildId, plan),
    enabled,
    retry: false,
    queryFn: () =>
      unwrap(api.GET('/api/v1/billing/prepare', { params: { query: { guild_id: guildId, plan } } })),
  });

export type ConfirmBody = Schemas['ConfirmDto'];

/**
 * docs/behaviour.md §4.5. The answer says whether the first charge went through (200) or is still being
 * processed (202: the webhook settles it later).
 */
export async function confirmCheckout(
  body: ConfirmBody,
): Promise<{ processing: boolean; subscription: Schemas['SubscriptionView'] }> {
  const result = await api.POST('/api/v1/billing/confirm', { body });
  const subscription = await unwrap(Promise.resolve(result));
  return { processing: result.response.status === 202, subscription };
}

/** Invalidates what a change to the guild's subscription touches: its reads, the licence, AntiNuke. */
function useRefreshBilling(guildId: string) {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: billingKeys.subscriptions(guildId) }),
      client.invalidateQueries({ queryKey: ['subscription'] }),
      client.invalidateQueries({ queryKey: keys.license(guildId) }),
      client.invalidateQueries({ queryKey: keys.antinuke(guildId) }),
    ]);
}

export type SubscriptionChange =
  | { kind: 'change-plan'; plan: PlanCode }
  | { kind: 'cancel' }
  | { kind: 'uncancel' }
  | { kind: 'drop-downgrade' };

/** The payer's changes to a subscription (docs/behaviour.md §4.7-4.8 and their undos). */
export function useChangeSubscription(guildId: string, id: string) {
  const refresh = useRefreshBilling(guildId);
  const path = { params: { path: { id } } };
  return useMutation({
    // An upgrade answers its charge (paid, or still processing); the page says which.
    mutationFn: async (change: SubscriptionChange): Promise<Schemas['UpgradePaymentView'] | null> => {
      switch (change.kind) {
        case 'change-plan':
          return (
            await unwrap(
              api.POST('/api/v1/subscriptions/{id}/change-plan', {
                ...path,
                body: { new_plan_code: change.plan },
              }),
            )
          ).payment;
        case 'cancel':
          await unwrap(api.POST('/api/v1/subscriptions/{id}/cancel', path));
          return null;
        case 'uncancel':
          await unwrap(api.POST('/api/v1/subscriptions/{id}/uncancel', path));
          return null;
        case 'drop-downgrade':
          await unwrap(api.DELETE('/api/v1/subscriptions/{id}/pending-downgrade', path));
          return null;
      }
    },
    onSettled: refresh,
  });
}

export { useRefreshBilling };
