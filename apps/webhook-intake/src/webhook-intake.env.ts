import { BaseEnv } from '@lib/config';

export class WebhookIntakeEnv extends BaseEnv {
  override PORT = 3005;
}
