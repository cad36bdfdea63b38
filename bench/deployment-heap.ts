// The heap a production replica of the gateway has. A replica runs under its Deployment's memory
// limit (the prod overlay's), and Node sizes V8's old generation from that limit, not from the
// host's memory: half of it on 64-bit (a quarter of the memory, times two for 8-byte pointers),
// within 256 MB and 2 GB. V8 in turn takes the ceiling of its heap growing factor from that size:
// 1.35 at 384 MB, against 4 on a host with gigabytes free, where the bench's gateway let its old
// generation reach ≈ 70 MB before its first full GC under load, a regime no replica runs in. The
// bench gives its gateways the replica's size with --max-old-space-size (docs/gateway-performance.md,
// step 19).
import { Deployment } from 'kubernetes-models/apps/v1';
import { byName, kustomizeBuild, ofKind } from '../test/deploy/deploy-helpers';

const MIB = 1024 * 1024;
const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  Ki: 1024,
  Mi: MIB,
  Gi: 1024 * MIB,
};

/** A Kubernetes memory quantity ("768Mi", "1G", "536870912") in bytes. */
export function memoryBytes(quantity: string): number {
  const m = /^(\d+(?:\.\d+)?)(k|M|G|Ki|Mi|Gi)?$/.exec(quantity.trim());
  if (!m) throw new Error(`not a memory quantity this bench reads: ${quantity}`);
  return Number(m[1]) * UNITS[m[2] ?? '']!;
}

/** The old generation, in MB, that Node gives a process whose memory is limited to `bytes`. */
export function nodeOldSpaceMb(bytes: number): number {
  return Math.min(2048, Math.max(256, Math.floor(bytes / 2 / MIB)));
}

export interface ReplicaHeap {
  /** Node flags that give a process outside the container the replica's heap (none if unknown). */
  flags: string[];
  /** What the run's notes say about it. */
  note: string;
}

/** The overlay's gateway container memory limit, as written ("768Mi"); throws without the Deployment. */
export function gatewayMemoryLimit(overlay: string): string | undefined {
  const gw = byName(ofKind(kustomizeBuild(overlay), 'Deployment', Deployment), 'lookup-gateway');
  const limit = gw.spec?.template.spec?.containers.find((c) => c.name === 'gateway')?.resources?.limits
    ?.memory;
  return limit === undefined ? undefined : String(limit);
}

/** The prod overlay's gateway memory limit as the heap flags that reproduce it; none without kubectl. */
export function replicaHeap(overlay = 'prod'): ReplicaHeap {
  let limit: string | undefined;
  try {
    limit = gatewayMemoryLimit(overlay);
  } catch (err) {
    return { flags: [], note: `replica heap not applied (${(err as Error).message.split('\n')[0]})` };
  }
  if (!limit)
    return { flags: [], note: `replica heap not applied: the ${overlay} gateway has no memory limit` };
  const mb = nodeOldSpaceMb(memoryBytes(limit));
  return {
    flags: [`--max-old-space-size=${mb}`],
    note: `the gateway runs with --max-old-space-size=${mb}, the old generation Node gives a replica under the ${overlay} overlay's ${limit} memory limit (V8 bounds its heap growing by it)`,
  };
}
