import type { IncomingHttpHeaders } from 'node:http';

/**
 * Where API Priority and Fairness put the recorder's Event writes, as the
 * server's answers say (`X-Kubernetes-PF-FlowSchema-UID`,
 * `X-Kubernetes-PF-PriorityLevel-UID`): `kubectl get flowschemas,prioritylevelconfigurations -o
 * custom-columns=NAME:.metadata.name,UID:.metadata.uid` names them.
 */
export interface EventWritesFlow {
  /** The uid of the FlowSchema the last answered Event request matched. */
  readonly flowSchemaUid: string;
  /** The uid of the PriorityLevelConfiguration it was queued at. */
  readonly priorityLevelUid: string;
}

/** A uid as kube-apiserver writes one: nothing else is kept from the header. */
const UID = /^[0-9a-f-]{1,64}$/;

/** The flow an answer's headers name, when they name a well-formed one. */
export function flowOf(headers: IncomingHttpHeaders): EventWritesFlow | undefined {
  const flowSchemaUid = headers['x-kubernetes-pf-flowschema-uid'];
  const priorityLevelUid = headers['x-kubernetes-pf-prioritylevel-uid'];
  if (typeof flowSchemaUid !== 'string' || typeof priorityLevelUid !== 'string') return undefined;
  if (!UID.test(flowSchemaUid) || !UID.test(priorityLevelUid)) return undefined;
  return { flowSchemaUid, priorityLevelUid };
}
