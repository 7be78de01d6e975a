// Sandboxed preload: exposes the contract bridge, nothing else.
import { contextBridge, ipcRenderer } from 'electron';
import { buildBridge } from './bridge';

const bridge = buildBridge(ipcRenderer);
contextBridge.exposeInMainWorld('lbdesk', {
  methods: bridge.methods,
  onEvent: bridge.onEvent,
});
