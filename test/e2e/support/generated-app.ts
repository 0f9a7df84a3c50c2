import { execFile } from 'node:child_process';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AppFiles } from './nest-templates.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const NODE = process.execPath;

/** The library as a stranger gets it: `npm pack` of libs/kube-events into `directory`; the tarball's path. */
export async function packLibrary(directory: string): Promise<string> {
  const packed = await run('npm', ['pack', '--pack-destination', directory, '--json'], {
    cwd: join(ROOT, 'libs/kube-events'),
  });
  return join(directory, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
}

/** The version of a package the workspace runs (its npm cache holds it). */
export async function workspaceVersion(name: string): Promise<string> {
  const path = join(ROOT, 'node_modules', name, 'package.json');
  return (JSON.parse(await readFile(path, 'utf8')) as { version: string }).version;
}

/** What a command printed, and how it exited. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** An application outside the workspace, made from a template, with its packages installed from the registry. */
export class GeneratedApp {
  private constructor(readonly directory: string) {}

  /** Writes `packageJson` and `files` into `directory`. */
  static async create(directory: string, packageJson: Record<string, unknown>, files: AppFiles): Promise<GeneratedApp> {
    const app = new GeneratedApp(directory);
    await app.write({ 'package.json': `${JSON.stringify(packageJson, null, 2)}\n`, ...files });
    return app;
  }

  /** Writes each file, making its folder. */
  async write(files: AppFiles): Promise<void> {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(this.directory, path)), { recursive: true });
      await writeFile(join(this.directory, path), text);
    }
  }

  /** The app's package.json. */
  async packageJson(): Promise<Record<string, unknown>> {
    return JSON.parse(await readFile(join(this.directory, 'package.json'), 'utf8')) as Record<string, unknown>;
  }

  /**
   * A plain `npm install`: the peer dependencies as npm checks them by default, whatever the npm that runs the
   * tests was told (`npm_config_legacy_peer_deps` and the like are not passed on).
   */
  async install(): Promise<Ran> {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([key]) => !/^npm_config_(legacy_peer_deps|force|strict_peer_deps)$/i.test(key),
      ),
    );
    return this.ran(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'],
      env,
      600_000,
    );
  }

  /** Runs a script of the app's with the Node the tests run on. */
  node(args: string[], env: NodeJS.ProcessEnv = {}, timeout = 180_000): Promise<Ran> {
    // A variable given as undefined is left out, not passed as "undefined".
    const merged = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env };
    return this.ran(
      NODE,
      args,
      Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined)),
      timeout,
    );
  }

  /**
   * Runs one of the app's package.json scripts as `npm run` would, but with the Node the tests run on: its
   * `node` is this Node, and another command is the script of that name in node_modules/.bin.
   */
  async script(name: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
    const line = ((await this.packageJson()).scripts as Record<string, string>)[name];
    const [command, ...args] = line.split(' ');
    if (command === 'node') return this.node(args, env);
    return this.node([await realpath(join(this.directory, 'node_modules/.bin', command)), ...args], env);
  }

  /** The TypeScript compiler the app installed, with `args`. */
  tsc(args: string[]): Promise<Ran> {
    return this.node([join(this.directory, 'node_modules/typescript/bin/tsc'), ...args]);
  }

  private async ran(command: string, args: string[], env: NodeJS.ProcessEnv, timeout: number): Promise<Ran> {
    return run(command, args, { cwd: this.directory, env, timeout, maxBuffer: 16 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: unknown) => {
        // execFile's error of a command that ran: its exit code and what it printed.
        const { code, stdout, stderr } = error as { code?: unknown; stdout?: string; stderr?: string };
        return { code: typeof code === 'number' ? code : 1, stdout: stdout ?? '', stderr: stderr ?? '' };
      },
    );
  }
}
