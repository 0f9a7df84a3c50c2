import {
  type ApiConstructor,
  type ApiType,
  type KubeConfig,
  Observable,
  type RequestContext,
  type ResponseContext,
  ServerConfiguration,
  createConfiguration,
} from '@kubernetes/client-node';

/** What the operator's requests say they are (the API server's audit log shows it). */
const USER_AGENT = 'configmirror-controller';

/**
 * `kubeConfig.makeApiClient(api)`, with every request bounded: a request
 * that has no answer (its body included) within `timeoutMs` is aborted and
 * its call rejects with a `TimeoutError`. client-node gives a call no
 * timeout of its own, so a half-open connection would otherwise leave it
 * pending forever. A signal a call brings (see `abortable`) still aborts it
 * earlier.
 */
export function boundedApiClient<T extends ApiType>(
  kubeConfig: KubeConfig,
  api: ApiConstructor<T>,
  timeoutMs: number,
): T {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('no Kubernetes cluster configured: the kubeconfig has no current cluster');
  return new api(
    createConfiguration({
      baseServer: new ServerConfiguration(cluster.server, {}),
      authMethods: { default: kubeConfig },
      middleware: [
        {
          pre: (request: RequestContext) => {
            request.setHeaderParam('User-Agent', USER_AGENT);
            addSignal(request, AbortSignal.timeout(timeoutMs));
            return new Observable(Promise.resolve(request));
          },
          post: (response: ResponseContext) => new Observable(Promise.resolve(response)),
        },
      ],
    }),
  );
}

/** Makes `signal` abort `request` too, keeping any signal it already has. */
export function addSignal(request: RequestContext, signal: AbortSignal): void {
  const existing = request.getSignal();
  request.setSignal(existing ? AbortSignal.any([existing, signal]) : signal);
}
