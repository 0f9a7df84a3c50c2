import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { EventRecorder } from './event-recorder.js';
import { DUPLICATE_RECORDER } from '../kube-events.messages.js';
import { recorderNameOf } from './recorder-tokens.js';

/** A recorder's name: `null` for the default one. */
export type RecorderName = string | null;

/**
 * Indexes what belongs to each recorder by the recorder's name. Two
 * different ones under one name fail the start-up: otherwise the last would
 * silently win, and a decorated method or a sink would use another
 * controller's recorder.
 */
export function byRecorderName<T>(entries: Iterable<readonly [RecorderName, T]>): Map<RecorderName, T> {
  const index = new Map<RecorderName, T>();
  for (const [name, value] of entries) {
    const known = index.get(name);
    if (known !== undefined && known !== value) throw new Error(DUPLICATE_RECORDER(name));
    index.set(name, value);
  }
  return index;
}

/** The application's recorders, by name. */
export function findRecorders(providers: InstanceWrapper[]): Map<RecorderName, EventRecorder> {
  return byRecorderName(
    providers.flatMap((wrapper) => {
      const name = recorderNameOf(wrapper.token);
      return name !== undefined && wrapper.instance instanceof EventRecorder ? [[name, wrapper.instance] as const] : [];
    }),
  );
}
