import 'reflect-metadata';
import { runService } from '@lib/runtime';
import { billingService } from './service';

void runService(billingService);
