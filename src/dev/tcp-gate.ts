/**
 * A TCP forwarder on a loopback port that a test or the soak (`npm run soak`) can close and open again, to take a real
 * server "down" for the product (connections refused) and bring it back on the same port, without restarting the
 * server itself.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { LOOPBACK, freePort } from './ports.js';

/** Handle of {@link startTcpGate}. */
export interface TcpGate {
  readonly host: typeof LOOPBACK;
  /** The port the product connects to; the same across close/open. */
  readonly port: number;
  /** Stops listening and cuts every forwarded connection: new connections are refused. */
  close(): Promise<void>;
  /** Listens again and forwards new connections. */
  open(): Promise<void>;
}

/** Starts forwarding `LOOPBACK:port` to `target`, open. */
export async function startTcpGate(target: { host: string; port: number }): Promise<TcpGate> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const open = async (): Promise<void> => {
    if (server) return;
    const listening = createServer((client) => {
      const upstream = connect(target.port, target.host);
      track(client);
      track(upstream);
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, LOOPBACK, () => resolve());
    });
    server = listening;
  };
  const close = async (): Promise<void> => {
    const listening = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (listening) await new Promise<void>((resolve) => listening.close(() => resolve()));
  };
  await open();
  return { host: LOOPBACK, port, open, close };
}
