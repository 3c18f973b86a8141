import 'reflect-metadata';
import { runService } from '@lib/runtime';
import { webhookIntakeService } from './service';

void runService(webhookIntakeService);
