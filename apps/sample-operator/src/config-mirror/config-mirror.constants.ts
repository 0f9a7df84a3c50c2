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
/** Annotation on every copy: `namespace/name` of the source ConfigMap. */
export const MIRROR_SOURCE_ANNOTATION = `${CONFIG_MIRROR_GROUP}/source`;

/** The condition type the operator maintains. */
export const READY_CONDITION = 'Ready';
