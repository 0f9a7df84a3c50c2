// An application with one recorder and the terminus health indicator, as an operator with a /health endpoint has.
import { Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { TerminusModule } from '@nestjs/terminus';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeEventsModule, type KubeEventsModuleOptions } from 'nestjs-kube-events';
import { KubeEventsHealthIndicator } from 'nestjs-kube-events/terminus';
import { CONTROLLER } from './library-fixtures.js';

@Module({ imports: [TerminusModule], providers: [KubeEventsHealthIndicator] })
class HealthModule {}

/**
 * The testing module of such an application, with the recorder of {@link CONTROLLER} on `kubeConfig`, compiled but
 * not yet initialised: the caller keeps it for closing before `init()`, which may fail.
 */
export const compileWithHealth = (
  kubeConfig: KubeConfig,
  options: Partial<KubeEventsModuleOptions> = {},
): Promise<TestingModule> =>
  Test.createTestingModule({
    imports: [KubeEventsModule.forRoot({ reporter: { controller: CONTROLLER }, kubeConfig, ...options }), HealthModule],
  }).compile();
