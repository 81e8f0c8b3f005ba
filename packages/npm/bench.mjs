// What a node:test suite pays for portald through this package: startPortal (spawn to the first answered
// call) and fresh() between tests (restore a snapshot; clear faults, journal and clock). Targets: start
// < 200 ms, between tests < 10 ms. Bounded runs; prints median and 90th percentile, decides nothing.
//
//   PORTALD_BIN=/path/to/portald node packages/npm/bench.mjs
import { performance } from "node:perf_hooks";
import { startPortal } from "./portald/index.js";

const STARTS = 15;
const BETWEEN = 200;

function ms(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  const p90 = s[Math.ceil(s.length * 0.9) - 1];
  return `median ${median.toFixed(2).padStart(7)} ms  p90 ${p90.toFixed(2).padStart(7)} ms  (n=${s.length})`;
}

for (const tls of [false, true]) {
  const starts = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now();
    const p = await startPortal({ tls });
    await p.snapshot("bench"); // the first answered call: ready for a test
    starts.push(performance.now() - t0);
    await p.stop();
  }
  console.log(`node start (${tls ? "https" : "http "}, to the first answered call)  ${ms(starts)}   target < 200 ms`);
}

const p = await startPortal({ tls: true });
await p.snapshot("bench");
const between = [];
for (let i = 0; i < BETWEEN; i++) {
  await p.faults.add({ operation: "moveItems", error: { code: 498 } });
  await p.clock.advance("1h");
  const t0 = performance.now();
  await p.fresh("bench");
  between.push(performance.now() - t0);
}
console.log(`node fresh (restore + clear faults/journal/clock)    ${ms(between)}   target < 10 ms`);
await p.stop();
