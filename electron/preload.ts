/**
 * The preload: the page's only way out of its sandbox. It exposes one typed function,
 * `window.capstan.invoke`, over the channels declared in shared/ipc.ts, and nothing else:
 * no ipcRenderer, no generic send. Main checks the sender and the payload again.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { refusal } from '../shared/envelope';
import { IPC_EVENT_CHANNEL, ipcChannel, isOperationName, type CapstanBridge, type IpcReply } from '../shared/ipc';

const bridge: CapstanBridge = {
  invoke: (operation, input) => {
    if (!isOperationName(operation)) {
      // An envelope, like every reply, so the console reports it as it reports any refusal.
      return Promise.resolve(refusal('BAD_REQUEST', `"${String(operation)}" is not a Capstan operation`) as IpcReply<typeof operation>);
    }
    return ipcRenderer.invoke(ipcChannel(operation), input);
  },
  onEvent: (listener) => {
    // The page gets the event alone, never the IpcRendererEvent (it carries the sender).
    const forward = (_event: unknown, payload: Parameters<typeof listener>[0]) => listener(payload);
    ipcRenderer.on(IPC_EVENT_CHANNEL, forward);
    return () => void ipcRenderer.removeListener(IPC_EVENT_CHANNEL, forward);
  },
};

contextBridge.exposeInMainWorld('capstan', bridge);
