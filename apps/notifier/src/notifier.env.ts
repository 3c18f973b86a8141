import { KafkaEnv } from '@lib/config';

export class NotifierEnv extends KafkaEnv {
  override PORT = 3004;
}
