import { inject, type InjectionKey } from 'vue';
import type { ApiClient } from '../../../shared/api/contract';

export const API_KEY: InjectionKey<ApiClient> = Symbol('lbdesk-api');

export function useApi(): ApiClient {
  const api = inject(API_KEY);
  if (!api) throw new Error('the lbdesk API client was not provided');
  return api;
}
