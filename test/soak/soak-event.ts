// What the soak's replicas publish, and as whom: the tenant of the soak works out the names of their series from it.
import type { KubeEvent } from 'nestjs-kube-events';

/** The controller every replica of the soak reports as. */
export const SOAK_CONTROLLER = 'kube-events.soak/widget-controller';

/** The failure every replica publishes about every object. */
export const SOAK_FAILURE = {
  type: 'Warning',
  reason: 'ReconcileFailed',
  action: 'Reconcile',
  note: 'source not found',
} as const satisfies KubeEvent;
