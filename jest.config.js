/** ts-jest transpiles only (tsconfig sets isolatedModules); type-checking is `npm run typecheck`. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { diagnostics: false }] },
  testTimeout: 30000,
  // One more worker than the machine's two cores: the real-process suites spend much of their time
  // waiting on child processes, sockets and timers, and a third worker fills that time. Measured on
  // a 2-core machine: the whole run in 298 s against 355 s with two, and with one core kept busy by
  // another process 362 s against 440 s, every test passing in all four runs.
  maxWorkers: 3,
  // Under --experimental-vm-modules (PGlite imports its parts dynamically) Node 20 keeps every test
  // file's vm context alive, so a worker's heap grew by ≈ 20 MB a file and its RSS past 1 GB; its
  // exit then took longer than the 500 ms Jest allows, and Jest printed "a worker process has
  // failed to exit gracefully" with no handle left open. A worker whose heap passes this limit
  // after a file is replaced. Measured on a 2-core machine: no such notice in two whole runs,
  // 420 s and 430 s, against the notice in every one of four runs without it, 441–487 s.
  workerIdleMemoryLimit: '250MB',
};
