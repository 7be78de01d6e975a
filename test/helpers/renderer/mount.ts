// Mounting with the app's plugins: Pinia, the API client, and the in-process document worker.
import { createPinia, setActivePinia, type Pinia } from 'pinia';
import { createApp, defineComponent, h, type Component } from 'vue';
import { flushPromises, mount, type VueWrapper } from '@vue/test-utils';
import type { ApiClient } from '../../../shared/api/contract';
import { API_KEY } from '../../../renderer/src/api/inject';
import { configureWorkspace, useWorkspace } from '../../../renderer/src/stores/workspace';
import { useLab } from '../../../renderer/src/stores/lab';
import { afterEach, beforeEach } from 'vitest';
import { realApi, type RealApi } from './api';

configureWorkspace({ worker: false });

/** A Pinia bound to an app that provides the API, so setup stores can inject it. */
export function storeContext(api: ApiClient): Pinia {
  const pinia = createPinia();
  const app = createApp(defineComponent({ render: () => h('div') }));
  app.provide(API_KEY, api);
  app.use(pinia);
  setActivePinia(pinia);
  return pinia;
}

export function mountWith<C extends Component>(component: C, api: ApiClient, pinia: Pinia, props: Record<string, unknown> = {}): VueWrapper {
  return mount(component as Component, { props, attachTo: document.body, global: { plugins: [pinia], provide: { [API_KEY as symbol]: api } } });
}

/** Waits for the mirror edits to reach the engine and be validated. */
export async function settled(): Promise<void> {
  await flushPromises();
  await useWorkspace().settle();
  await flushPromises();
}

/**
 * For the tests of the calling `describe`: the real services, a Pinia bound to them, and the
 * demo workspace open; closed after each test. Read `t.real` and `t.pinia` inside the tests.
 */
export function withDemo(): { readonly real: RealApi; readonly pinia: Pinia } {
  const t = {} as { real: RealApi; pinia: Pinia };
  beforeEach(async () => {
    t.real = realApi();
    t.pinia = storeContext(t.real.api);
    await useWorkspace().openDemo();
  });
  afterEach(async () => t.real.close());
  return t;
}

/**
 * For the tests of the calling `describe` that run the real lab: the real services and a Pinia
 * bound to them; after each test the lab is stopped and the services closed.
 */
export function withRealLab(): { readonly real: RealApi; readonly pinia: Pinia } {
  const t = {} as { real: RealApi; pinia: Pinia };
  beforeEach(() => {
    t.real = realApi();
    t.pinia = storeContext(t.real.api);
  });
  afterEach(async () => {
    await useLab().stop();
    await t.real.close();
  });
  return t;
}

/** Polls `f` (letting the stores settle between looks) until it holds, or fails after `ms`. */
export async function until(f: () => boolean, ms: number, what: string): Promise<void> {
  const t0 = Date.now();
  while (!f()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
    await settled();
  }
}
