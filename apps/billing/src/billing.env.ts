import { KafkaEnv } from '@lib/config';

export class BillingEnv extends KafkaEnv {
  override PORT = 3002;
}
