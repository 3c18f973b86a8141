import { BaseEnv } from '@lib/config';

export class GatewayEnv extends BaseEnv {
  override PORT = 3000;
}
