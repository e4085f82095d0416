/**
 * Preloaded (`node --import`) into a server under test that listens on every interface: its
 * listening socket is bound to 127.0.0.1 instead, and the port it got is written to stderr as
 * `LISTENING <port>`, so a test can start it on port 0 and still find it. Tests talk to loopback only.
 */
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  const [first] = args;
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
    else args[1] = '127.0.0.1';
  } else if (typeof first === 'object' && first !== null && !('path' in first)) {
    args[0] = { ...first, host: '127.0.0.1' };
  }
  this.once('listening', () => {
    const address = this.address();
    if (typeof address === 'object' && address) process.stderr.write(`LISTENING ${address.port}\n`);
  });
  return listen.apply(this, args as Parameters<typeof listen>);
} as typeof listen;
