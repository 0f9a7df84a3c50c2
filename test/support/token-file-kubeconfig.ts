// A kubeconfig whose user authenticates with a token file (`users[].user.token-file`), as
// `kubectl config set-credentials --token-file` writes one, for the tests of how that file is read.
import { writeFile } from 'node:fs/promises';

/** The cluster, user and namespace of a {@link writeTokenFileKubeconfig}. */
export interface TokenFileKubeconfig {
  /** The cluster's fields as a kubeconfig spells them: `server`, `certificate-authority-data`, … */
  readonly cluster: Record<string, unknown>;
  /** The path the user's token is read from. */
  readonly tokenFile: string;
  /** The context's namespace, when it names one. */
  readonly namespace?: string;
}

/** Writes at `path` a kubeconfig whose current context pairs `cluster` with a user whose `token-file` is `tokenFile`. */
export async function writeTokenFileKubeconfig(
  path: string,
  { cluster, tokenFile, namespace }: TokenFileKubeconfig,
): Promise<void> {
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'cluster', cluster }],
      users: [{ name: 'from-file', user: { 'token-file': tokenFile } }],
      contexts: [
        { name: 'from-file', context: { cluster: 'cluster', user: 'from-file', ...(namespace && { namespace }) } },
      ],
      'current-context': 'from-file',
    }),
  );
}
