import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PublishesFailuresExplorer } from './publishes-failures.explorer.js';

/**
 * Holds the one explorer that serves `@PublishesFailures` methods with their
 * recorders. A static module is instantiated once per application however
 * many `KubeEventsModule.forRoot` import it.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [PublishesFailuresExplorer],
})
export class PublishesFailuresModule {}
