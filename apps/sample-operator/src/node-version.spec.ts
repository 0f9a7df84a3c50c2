import { readFileSync } from 'node:fs';
import { MINIMUM_NODE, isSupportedNode, unsupportedNode } from './node-version.js';

describe('the Node.js check of the entry point', () => {
  test('asks for what the workspace declares in engines', () => {
    const workspace = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      engines: { node: string };
    };
    expect(workspace.engines.node).toBe(`>=${MINIMUM_NODE}`);
  });

  test.each([
    ['20.20.2', false],
    ['22.18.9', false],
    ['22.19.0', true],
    ['v22.19.0', true],
    ['24.9.0', true],
    ['25.0.0-nightly', true],
  ])('%s: %s', (version, supported) => {
    expect(isSupportedNode(version)).toBe(supported);
  });

  test('says which Node.js it needs, and which it got', () => {
    expect(unsupportedNode('20.20.2')).toMatch(/needs Node\.js 22\.19 or newer; this is Node\.js 20\.20\.2/);
  });
});
