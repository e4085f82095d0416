/** The gateway's operations on their IPC channels, answered only for Capstan's own page. */
import { operations, type OperationName } from '../../shared/api';
import { refusal } from '../../shared/envelope';
import { ipcChannel } from '../../shared/ipc';
import type { IpcDispatcher } from '../transports/ipc';
import type { Logger } from '../logger';
import { isAppPage } from './appPage';

/** Only the top frame of Capstan's own page may call; anything else gets FORBIDDEN_ORIGIN. */
export function registerIpc(ipc: Pick<Electron.IpcMain, 'handle'>, dispatcher: IpcDispatcher, logger: Logger): void {
  for (const operation of Object.keys(operations) as OperationName[]) {
    const channel = ipcChannel(operation);
    ipc.handle(channel, async (event: Electron.IpcMainInvokeEvent, payload: unknown) => {
      const frame = event.senderFrame;
      if (!frame || frame.parent !== null || !isAppPage(frame.url)) {
        logger.warn({ channel, senderUrl: frame?.url ?? null }, 'refused IPC from an untrusted frame');
        return refusal('FORBIDDEN_ORIGIN', 'only Capstan’s own page may call the gateway');
      }
      return dispatcher(operation, payload);
    });
  }
}
