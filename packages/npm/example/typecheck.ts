// Compiled (not run) by make test-npm against the installed package: its types, the emulator's among them,
// are what a TypeScript suite sees.
import { startPortal, type Fault, type JournalEntry, type Portal } from "portald";

const portal: Portal = await startPortal({ tls: true, args: ["-version", "11.0"] });
const rule: Fault = await portal.faults.add({ operation: "moveItems", itemErrors: { "*": { code: 500 } }, delay: 5 });
const calls: JournalEntry[] = await portal.journal({ operation: "moveItems", limit: 10 });
const fired: number | undefined = calls[0]?.answer.failedItems;
const ca: string | undefined = portal.caFile;
// @ts-expect-error: a fault rule's status is a number
await portal.faults.add({ operation: "moveItems", status: "429" });
await portal.stop();
export { rule, fired, ca };
