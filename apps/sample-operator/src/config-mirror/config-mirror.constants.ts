/** API group of the ConfigMirror custom resource. */
export const CONFIG_MIRROR_GROUP = 'mirror.kube-events.dev';
export const CONFIG_MIRROR_VERSION = 'v1alpha1';
export const CONFIG_MIRROR_API_VERSION = `${CONFIG_MIRROR_GROUP}/${CONFIG_MIRROR_VERSION}`;
export const CONFIG_MIRROR_KIND = 'ConfigMirror';
export const CONFIG_MIRROR_PLURAL = 'configmirrors';
/** The CustomResourceDefinition's name (deploy/crd.yaml). */
export const CONFIG_MIRROR_CRD_NAME = `${CONFIG_MIRROR_PLURAL}.${CONFIG_MIRROR_GROUP}`;

/** `reportingController` of every Event the operator publishes (a qualified name). */
export const CONFIG_MIRROR_CONTROLLER = `${CONFIG_MIRROR_GROUP}/configmirror-controller`;

/** Field manager of the operator's writes (shown in `managedFields`). */
export const FIELD_MANAGER = 'configmirror-controller';

/** Label on every copy: who manages it. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'configmirror-controller';
/** Label on every copy: the name of the ConfigMirror that wrote it. */
export const MIRROR_NAME_LABEL = `${CONFIG_MIRROR_GROUP}/mirror`;
/** Annotation on every copy: `namespace/name` of the ConfigMirror that wrote it (labels cannot hold a slash). */
export const MIRROR_OWNER_ANNOTATION = `${CONFIG_MIRROR_GROUP}/owner`;
/**
 * Annotation on every copy: the uid of the ConfigMirror that wrote it. A
 * change of a ConfigMap queues a mirror only when this names that mirror's
 * uid (and the ConfigMap sits where the mirror writes): the name in the
 * owner annotation alone is anyone's to write.
 */
export const MIRROR_OWNER_UID_ANNOTATION = `${CONFIG_MIRROR_GROUP}/owner-uid`;
/** Annotation on every copy: `namespace/name` of the source ConfigMap. */
export const MIRROR_SOURCE_ANNOTATION = `${CONFIG_MIRROR_GROUP}/source`;

/**
 * Prefix of the label by which a namespace accepts copies from ConfigMirrors of
 * another namespace: `accept-from.mirror.kube-events.dev/<namespace>: "true"`
 * (see {@link acceptMirrorsFromLabel}). A label, not an annotation, so that
 * `kubectl get namespaces -l accept-from.mirror.kube-events.dev/tenant-a` lists
 * where mirrors of `tenant-a` may write; one key per namespace, since a label
 * value holds one name.
 */
export const ACCEPT_MIRRORS_FROM_LABEL_PREFIX = `accept-from.${CONFIG_MIRROR_GROUP}/`;

/** The label a namespace carries, with the value `"true"`, to accept copies from ConfigMirrors of `namespace`. */
export const acceptMirrorsFromLabel = (namespace: string) => `${ACCEPT_MIRRORS_FROM_LABEL_PREFIX}${namespace}`;

/** The condition type the operator maintains. */
export const READY_CONDITION = 'Ready';

/**
 * The ClusterRole (deploy/rbac.yaml) a namespace binds to the operator's
 * service account, with a RoleBinding, for the operator to serve its
 * ConfigMirrors: read its ConfigMaps (the sources) and publish Events there.
 */
export const MIRRORS_CLUSTER_ROLE = 'configmirror-controller-mirrors';
/**
 * The ClusterRole (deploy/rbac.yaml) a namespace binds to the operator's
 * service account, with a RoleBinding, to receive copies: read and write its
 * ConfigMaps.
 */
export const COPIES_CLUSTER_ROLE = 'configmirror-controller-copies';
