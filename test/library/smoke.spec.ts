import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { KubeConfig, EventsV1Api } from '@kubernetes/client-node';

@Injectable() class A { hi() { return 'a'; } }
@Injectable() class B { constructor(readonly a: A) {} }
@Module({ providers: [A, B] }) class M {}

test('smoke', async () => {
  const m = await Test.createTestingModule({ imports: [M] }).compile();
  expect(m.get(B).a.hi()).toBe('a');
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ name: 'c', server: 'http://127.0.0.1:1' }, { name: 'u' });
  expect(kc.makeApiClient(EventsV1Api)).toBeTruthy();
});
