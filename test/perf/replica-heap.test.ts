/**
 * The benchmark gives its gateways the heap a production replica has (bench/deployment-heap.ts):
 * the old generation Node derives from the prod overlay's memory limit.
 */
import { Deployment } from 'kubernetes-models/apps/v1';
import { gatewayMemoryLimit, memoryBytes, nodeOldSpaceMb, replicaHeap } from '../../bench/deployment-heap';
import { byName, kustomizeBuild, ofKind } from '../deploy/deploy-helpers';

describe('the replica heap of the benchmark', () => {
  it('reads Kubernetes memory quantities in binary and decimal units', () => {
    expect(memoryBytes('768Mi')).toBe(768 * 1024 * 1024);
    expect(memoryBytes('1Gi')).toBe(1024 ** 3);
    expect(memoryBytes('1G')).toBe(1e9);
    expect(memoryBytes('536870912')).toBe(536_870_912);
  });

  it('refuses a quantity it cannot read rather than guessing a heap', () => {
    expect(() => memoryBytes('512MB')).toThrow(/not a memory quantity/);
    expect(() => memoryBytes('')).toThrow(/not a memory quantity/);
  });

  it('gives half the limit, within the 256 MB and 2 GB that V8 allows', () => {
    expect(nodeOldSpaceMb(memoryBytes('768Mi'))).toBe(384);
    expect(nodeOldSpaceMb(memoryBytes('256Mi'))).toBe(256);
    expect(nodeOldSpaceMb(memoryBytes('16Gi'))).toBe(2048);
  });

  it("follows the prod overlay's gateway memory limit", () => {
    // Read here without the bench's helper, so that a wrong lookup in it fails this test.
    const gw = byName(ofKind(kustomizeBuild('prod'), 'Deployment', Deployment), 'lookup-gateway');
    const limit = gw.spec!.template.spec!.containers.find((c) => c.name === 'gateway')!.resources!.limits!
      .memory;
    expect(gatewayMemoryLimit('prod')).toBe(limit);
    expect(replicaHeap().flags).toEqual([
      `--max-old-space-size=${nodeOldSpaceMb(memoryBytes(String(limit)))}`,
    ]);
  });
});
