import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { PublishesConditionChangesExplorer } from './publishes-condition-changes.explorer.js';

/**
 * Holds the one explorer that serves `@PublishesConditionChanges` methods
 * with their recorders. A static module is instantiated once per
 * application however many `KubeEventsModule.forRoot` import it.
 */
@Module({
  imports: [DiscoveryModule],
  providers: [PublishesConditionChangesExplorer],
})
export class PublishesConditionChangesModule {}
