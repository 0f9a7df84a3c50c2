import { type KubeConfig, type KubernetesObject, type RequestContext, Watch } from '@kubernetes/client-node';

/**
 * What the API server sends in place of whole objects when a client asks
 * for metadata only (as client-go's metadata informers do): a watch's
 * objects become `PartialObjectMetadata`, a list becomes a
 * `PartialObjectMetadataList`. JSON either way.
 */
const METADATA_ONLY_WATCH = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
export const METADATA_ONLY_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';

/** Options of {@link TrimmingWatch}. */
export interface TrimmingWatchOptions<T extends KubernetesObject> {
  /** Reduces each object to what the cache needs, before the informer keeps it. */
  trim: (object: T) => T;
  /** Ask the server for metadata only ({@link METADATA_ONLY_WATCH}): `data` never crosses the wire. */
  metadataOnly?: boolean;
}

/**
 * client-node's `Watch` (its connect and its inactivity are bounded: 30 s),
 * whose objects are trimmed before the informer's cache keeps them, and
 * which can ask for metadata only. So an informer's memory grows with the
 * number of objects it watches, never with what tenants put in them.
 */
export class TrimmingWatch<T extends KubernetesObject> extends Watch {
  constructor(
    kubeConfig: KubeConfig,
    private readonly options: TrimmingWatchOptions<T>,
  ) {
    super(options.metadataOnly ? acceptingMetadataOnly(kubeConfig) : kubeConfig);
  }

  override watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    return super.watch(
      path,
      queryParams,
      // ERROR carries a Status, BOOKMARK a resourceVersion: only objects are trimmed.
      (phase, object) =>
        callback(phase, phase === 'ERROR' || phase === 'BOOKMARK' ? object : this.options.trim(object as T)),
      done,
    );
  }
}

/**
 * The kubeconfig as `Watch` uses it (its current cluster and its
 * authentication), with an `Accept` header asking for metadata only: `Watch`
 * takes no headers of its own.
 */
function acceptingMetadataOnly(kubeConfig: KubeConfig): KubeConfig {
  const view: Pick<KubeConfig, 'getCurrentCluster' | 'applySecurityAuthentication'> = {
    getCurrentCluster: () => kubeConfig.getCurrentCluster(),
    applySecurityAuthentication: async (context: RequestContext) => {
      await kubeConfig.applySecurityAuthentication(context);
      context.setHeaderParam('Accept', METADATA_ONLY_WATCH);
    },
  };
  return view as KubeConfig;
}
