import { IsHttpUrl, ConsumerEnv } from '@lib/config';

export class LicensingEnv extends ConsumerEnv {
  override PORT = 3003;

  /** Recovery answers MANAGE_GUILD checks for the dashboard route. */
  @IsHttpUrl()
  RECOVERY_URL!: string;
}
