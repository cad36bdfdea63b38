import { spawnProduct } from './product-process';

// `npm start` with a variable of DESIGN §5 that cannot be right: it must not start on a default.
describe('a wrong environment variable at start', () => {
  it.each([
    ['PORT', 'abc', 'must be a TCP port, a whole number from 0 to 65535'],
    ['LOG_LEVEL', 'bogus', 'must be one of fatal, error, warn, info, debug, trace, silent'],
  ])(
    'stops with exit 1 and one JSON fatal line naming %s=%s and what it must be',
    async (variable, value, reason) => {
      const run = spawnProduct({ [variable]: value });
      expect(await run.exited).toBe(1);
      const lines = run
        .output()
        .split('\n')
        .filter((l) => l.trim() !== '');
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({
        level: 60,
        variable,
        reason,
        msg: `invalid environment: ${variable} ${reason}`,
      });
      expect(run.output()).not.toContain('lookup api started');
    },
    60_000,
  );
});
