/**
 * A busy cluster's share for one ServiceAccount: a priority level of one concurrency share (about 3 seats) that
 * rejects what it cannot seat, and a FlowSchema that sends everything the ServiceAccount does there. Real 429s with
 * Retry-After come from it. `precedence` decides which other schemas win over it (a lower number wins).
 */
export const tightPriorityLevel = (
  name: string,
  subject: { readonly namespace: string; readonly serviceAccount: string },
  precedence = 100,
): string => `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata:
  name: ${name}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: 1
    lendablePercent: 0
    borrowingLimitPercent: 0
    limitResponse:
      type: Reject
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata:
  name: ${name}
spec:
  priorityLevelConfiguration:
    name: ${name}
  matchingPrecedence: ${precedence}
  distinguisherMethod:
    type: ByUser
  rules:
    - subjects:
        - kind: ServiceAccount
          serviceAccount:
            name: ${subject.serviceAccount}
            namespace: ${subject.namespace}
      resourceRules:
        - verbs: ['*']
          apiGroups: ['*']
          resources: ['*']
          namespaces: ['*']
`;
