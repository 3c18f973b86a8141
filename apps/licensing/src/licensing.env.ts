import { KafkaEnv } from '@lib/config';

export class LicensingEnv extends KafkaEnv {
  override PORT = 3003;
}
