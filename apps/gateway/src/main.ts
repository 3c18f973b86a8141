import 'reflect-metadata';
import { runService } from '@lib/runtime';
import { gatewayService } from './service';

void runService(gatewayService);
