/** The TCP gate lives in src/dev, where the soak (`bench/soak.ts`) uses it too. */
export { startTcpGate, type TcpGate } from '../../src/dev/tcp-gate.js';
