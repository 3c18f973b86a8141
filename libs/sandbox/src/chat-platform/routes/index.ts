import { auditLogRoutes } from './audit-logs.routes';
import { banRoutes } from './bans.routes';
import { channelRoutes } from './channels.routes';
import { directMessageRoutes } from './direct-messages.routes';
import { expressionRoutes } from './expressions.routes';
import { gatewayRoutes } from './gateway.routes';
import { guildRoutes } from './guilds.routes';
import { incidentActionRoutes } from './incident-actions.routes';
import { interactionWebhookRoutes } from './interaction-webhooks.routes';
import { memberRoutes } from './members.routes';
import { oauth2Routes } from './oauth2.routes';
import { overwriteRoutes } from './overwrites.routes';
import { pruneRoutes } from './prune.routes';
import type { PlatformRoute } from './platform-route';
import { roleRoutes } from './roles.routes';
import { userRoutes } from './users.routes';
import { webhookRoutes } from './webhooks.routes';
import { autoModerationRoutes } from './auto-moderation.routes';
import { welcomeScreenRoutes } from './welcome-screen.routes';
import { onboardingRoutes } from './onboarding.routes';

export type { PlatformRoute, RouteRequest, RouteResponse } from './platform-route';

/** Every endpoint of the fake; a new resource group is one more file and one more entry here. */
export const platformRoutes: PlatformRoute[] = [
  ...userRoutes,
  ...guildRoutes,
  ...incidentActionRoutes,
  ...roleRoutes,
  ...channelRoutes,
  ...overwriteRoutes,
  ...memberRoutes,
  ...banRoutes,
  ...pruneRoutes,
  ...webhookRoutes,
  ...expressionRoutes,
  ...auditLogRoutes,
  ...gatewayRoutes,
  ...directMessageRoutes,
  ...oauth2Routes,
  ...interactionWebhookRoutes,
  ...autoModerationRoutes,
  ...welcomeScreenRoutes,
  ...onboardingRoutes,
];
