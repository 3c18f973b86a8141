import { KafkaEnv } from '@lib/config';
import { IsUrl } from 'class-validator';

export class LicensingEnv extends KafkaEnv {
  override PORT = 3003;

  /** Recovery answers MANAGE_GUILD checks for the dashboard route. */
  @IsUrl(
    { require_tld: false, protocols: ['http', 'https'] },
    { message: 'RECOVERY_URL must be an http(s) URL' },
  )
  RECOVERY_URL!: string;
}
