import { readFileSync } from 'node:fs';
import { loadYaml, type KubeConfig } from '@kubernetes/client-node';

/** A kubeconfig file's users, as far as their token files go. */
interface KubeConfigFile {
  users?: { name?: unknown; user?: { token?: unknown; 'token-file'?: unknown } }[];
}

/**
 * Makes the kubeconfig's `token-file` users read their file again, as
 * client-go does: client-node reads the file once, as it loads the
 * kubeconfig, and keeps the token for good, so a rotated token (a
 * projected ServiceAccount token, a workload identity's) would be refused
 * from the first rotation on. Each such user (without a `token`, exec
 * plugin or auth-provider of its own) gets client-node's own token-file
 * authentication, the one the in-cluster configuration uses: the file is
 * read again once a minute, and after the server refused its token.
 * `files` are the kubeconfig files `kubeConfig` was loaded from.
 */
export function followTokenFiles(kubeConfig: KubeConfig, files: readonly string[]): void {
  const tokenFiles = tokenFilesIn(files);
  if (!tokenFiles.size) return;
  const users = kubeConfig.users;
  users.forEach((user, i) => {
    const tokenFile = tokenFiles.get(user.name);
    if (tokenFile === undefined || user.exec || user.authProvider) return;
    users[i] = { ...user, token: undefined, authProvider: { name: 'tokenFile', config: { tokenFile } } };
  });
}

/** The token file of each user named in `files` that has one and no token; the first file naming a user wins, as client-node merges them. */
function tokenFilesIn(files: readonly string[]): Map<string, string> {
  const found = new Map<string, string>();
  const seen = new Set<string>();
  for (const file of files) {
    let parsed: KubeConfigFile | undefined;
    try {
      parsed = loadYaml<KubeConfigFile>(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    for (const entry of Array.isArray(parsed?.users) ? parsed.users : []) {
      const name = entry?.name;
      if (typeof name !== 'string' || seen.has(name)) continue;
      seen.add(name);
      const tokenFile = entry.user?.['token-file'];
      if (typeof tokenFile === 'string' && tokenFile && !entry.user?.token) found.set(name, tokenFile);
    }
  }
  return found;
}
