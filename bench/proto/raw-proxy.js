// Bare prototype for `bench/engine.ts --proxy`: the engine's socket layer (main/services/engine/
// io/uv.ts) without the engine - libuv TCP handles, JS onread into reused buffers, synchronous
// writes, readStop on backpressure, one close for both sides when both have ended. It measures
// what the engine itself (sessions, pools, stats, the worker thread) adds.
const { TCP, TCPConnectWrap, constants } = process.binding('tcp_wrap');
const { WriteWrap, ShutdownWrap, streamBaseState, kReadBytesOrError, kLastWriteWasAsync } = process.binding('stream_wrap');

const [listenAddr, listenPort, toAddr, toPort] = process.argv.slice(2);
const listener = new TCP(constants.SERVER);
listener.bind(listenAddr, Number(listenPort));
listener.setNoDelay(true);
listener.listen(4096);

function onRead() {
  const d = this.d;
  const n = streamBaseState[kReadBytesOrError];
  if (n > 0) {
    const w = new WriteWrap();
    w.handle = d.to;
    w.oncomplete = onWritten;
    w.d = d;
    w.async = false;
    d.to.writeBuffer(w, n === d.buf.length ? d.buf : d.buf.subarray(0, n));
    if (streamBaseState[kLastWriteWasAsync]) {
      // The write owns the buffer now: stop reading until it completes, read into a new one.
      this.readStop();
      d.buf = Buffer.allocUnsafe(65536);
      this.useUserBuffer(d.buf);
    }
    return;
  }
  d.eof = true;
  this.readStop();
  if (d.back.eof) {
    d.from.close();
    d.to.close();
    return;
  }
  const req = new ShutdownWrap();
  req.handle = d.to;
  req.oncomplete = () => {};
  d.to.shutdown(req);
}

function onWritten() {
  if (!this.d.eof) this.d.from.readStart();
}

listener.onconnection = (status, client) => {
  if (status !== 0) return;
  const server = new TCP(constants.SOCKET);
  const req = new TCPConnectWrap();
  req.oncomplete = (st) => {
    if (st !== 0) {
      client.close();
      server.close();
      return;
    }
    const up = { from: client, to: server, buf: Buffer.allocUnsafe(16384), eof: false };
    const down = { from: server, to: client, buf: Buffer.allocUnsafe(16384), eof: false, back: up };
    up.back = down;
    client.d = up;
    server.d = down;
    client.onread = onRead;
    server.onread = onRead;
    client.useUserBuffer(up.buf);
    server.useUserBuffer(down.buf);
    client.readStart();
    server.readStart();
  };
  server.setNoDelay(true);
  server.connect(req, toAddr, Number(toPort));
};
