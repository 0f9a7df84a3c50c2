import { Inject } from '@nestjs/common';
import { getEventRecorderToken } from '../recorder/recorder-tokens.js';

/**
 * Injects the recorder registered under `name`, or the default recorder
 * without one (which a plain `recorder: EventRecorder` parameter also gets).
 *
 * @example
 * constructor(@InjectEventRecorder('billing') private readonly billingEvents: EventRecorder) {}
 */
export const InjectEventRecorder = (name?: string): PropertyDecorator & ParameterDecorator =>
  Inject(getEventRecorderToken(name));
