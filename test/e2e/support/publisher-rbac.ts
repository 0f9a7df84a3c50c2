// The RBAC the library ships, as the end-to-end tests apply it to a publisher's ServiceAccount.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The Role the library ships (libs/kube-events/rbac/role.yaml), as it is. */
export const SHIPPED_ROLE = readFileSync(
  fileURLToPath(new URL('../../../libs/kube-events/rbac/role.yaml', import.meta.url)),
  'utf8',
);

/** The shipped Role's name. */
export const ROLE_NAME = /^ {2}name: (\S+)$/m.exec(SHIPPED_ROLE)![1];

/** The shipped Role applied into `namespace` and bound to `serviceAccount` (of `namespace`, or of another), as one manifest. */
export const publisherRbac = (
  namespace: string,
  serviceAccount: string,
  serviceAccountNamespace = namespace,
) => `${SHIPPED_ROLE}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: ${ROLE_NAME}
  namespace: ${namespace}
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: ${ROLE_NAME}
subjects:
  - kind: ServiceAccount
    name: ${serviceAccount}
    namespace: ${serviceAccountNamespace}
`;
