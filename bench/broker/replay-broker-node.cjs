// The replay broker (replay-broker.c) in Node: the same recorded answers, the same rules, with
// node:net. It shows what Node's own socket path costs a broker that does nothing else.
//   node bench/broker/replay-broker-node.cjs PORT RESPONSES_FILE
'use strict';
const net = require('node:net');
const { readFileSync } = require('node:fs');

const [port, file] = process.argv.slice(2);
const canned = new Map();
const data = readFileSync(file);
for (let at = 0; at + 8 <= data.length; ) {
  const n = data.readUInt32BE(at + 4);
  canned.set(`${data.readInt16BE(at)} ${data.readInt16BE(at + 2)}`, data.subarray(at + 8, at + 8 + n));
  at += 8 + n;
}

function acksOf(frame, version) {
  if (version >= 9) return -2;
  let at = 12;
  const clientId = frame.readInt16BE(at);
  at += 2 + Math.max(clientId, 0);
  if (version >= 3) {
    const txn = frame.readInt16BE(at);
    at += 2 + Math.max(txn, 0);
  }
  return frame.readInt16BE(at);
}

const server = net.createServer({ noDelay: true }, (socket) => {
  let buf = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
      const size = buf.readInt32BE(0);
      const frame = buf.subarray(0, 4 + size);
      buf = buf.subarray(4 + size);
      const key = frame.readInt16BE(4);
      const version = frame.readInt16BE(6);
      const answer = canned.get(`${key} ${version}`);
      if (answer === undefined) return socket.destroy();
      if (key === 0 && acksOf(frame, version) === 0) continue;
      const out = Buffer.from(answer);
      frame.copy(out, 4, 8, 12);
      socket.write(out);
    }
  });
  socket.on('error', () => {});
});
server.listen(Number(port), '127.0.0.1', () => console.log(`listening on 127.0.0.1:${port}`));
process.stdin.on('end', () => process.exit(0)).resume();
process.on('SIGTERM', () => process.exit(0));
