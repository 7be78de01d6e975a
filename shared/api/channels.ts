// Electron IPC channel names: one per contract method, plus one for events. The preload and
// main both derive them from the contract, so neither can drift.
import { METHOD_NAMES, type MethodName } from './contract';

export const CHANNEL_PREFIX = 'lbdesk:';
export const EVENT_CHANNEL = 'lbdesk:event';
export const channelOf = (method: MethodName): string => `${CHANNEL_PREFIX}${method}`;
export const ALLOWED_CHANNELS: ReadonlySet<string> = new Set(METHOD_NAMES.map(channelOf));
