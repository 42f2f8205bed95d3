// Plain JavaScript because worker threads do not inherit tsx's loader on Node 20.
// worker_threads body for the bench's read-bandwidth probe: scans its own large buffer with
// Buffer.indexOf for a byte that is absent (a vectorised native memchr, so the loop is
// bound by memory reads rather than by JavaScript) and reports bytes read per second.
import { parentPort, workerData } from "node:worker_threads";

const { bytes, seconds } = workerData;
const buffer = Buffer.alloc(bytes, 1);
buffer.indexOf(2); // touch every page once before timing
let read = 0;
const started = performance.now();
while (performance.now() - started < seconds * 1000) {
  if (buffer.indexOf(2) !== -1) throw new Error("probe byte present");
  read += bytes;
}
parentPort?.postMessage(read / ((performance.now() - started) / 1000));
