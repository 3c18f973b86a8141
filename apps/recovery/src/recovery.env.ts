import { KafkaEnv } from '@lib/config';
import { IsNotEmpty, IsString, Matches } from 'class-validator';

export class RecoveryEnv extends KafkaEnv {
  override PORT = 3001;

  @Matches(/^[^\s:]+:\d+$/, { message: 'TEMPORAL_ADDRESS must be host:port' })
  TEMPORAL_ADDRESS!: string;

  @IsString()
  @IsNotEmpty()
  TEMPORAL_NAMESPACE = 'default';
}
