import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubernetesModules, selectKubernetes } from './kubernetes-versions.js';

describe('choosing the Kubernetes to build', () => {
  let modulesDir: string;

  beforeAll(async () => {
    modulesDir = await mkdtemp(join(tmpdir(), 'kube-events-modules-'));
    for (const minor of ['v1.9', 'v1.35', 'v1.37']) {
      await mkdir(join(modulesDir, minor));
      await writeFile(join(modulesDir, minor, 'go.mod'), 'module nestjs-kube-events/control-plane\n');
    }
    await mkdir(join(modulesDir, 'v1.36')); // no go.mod: not a module
  });

  it('takes the newest minor by default, by number rather than by name', () => {
    const modules = kubernetesModules(modulesDir);
    expect(modules.map((module) => module.minor)).toEqual(['v1.9', 'v1.35', 'v1.37']);
    expect(selectKubernetes(undefined, modules).minor).toBe('v1.37');
    expect(selectKubernetes('', modules).minor).toBe('v1.37');
    expect(selectKubernetes('newest', modules).minor).toBe('v1.37');
  });

  it('takes a minor by name, or the oldest', () => {
    const modules = kubernetesModules(modulesDir);
    expect(selectKubernetes('1.35', modules).minor).toBe('v1.35');
    expect(selectKubernetes('v1.35', modules).minor).toBe('v1.35');
    expect(selectKubernetes('oldest', modules).minor).toBe('v1.9');
    expect(selectKubernetes('1.35', modules).binDir).toMatch(/\/\.cache\/control-plane\/v1\.35\/bin$/);
  });

  it('names the choices when asked for one it does not build', () => {
    expect(() => selectKubernetes('1.36', kubernetesModules(modulesDir))).toThrow(
      'KUBE_EVENTS_KUBERNETES="1.36" names no Kubernetes this repository builds: choose one of 1.9, 1.35, 1.37, oldest or newest (the default)',
    );
  });

  it('builds 1.35 and 1.37, the newest by default', () => {
    expect(kubernetesModules().map((module) => module.minor)).toEqual(['v1.35', 'v1.37']);
    expect(selectKubernetes('').minor).toBe('v1.37');
  });
});
