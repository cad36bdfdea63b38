/**
 * The bench records each run's host by vendor, family and model: the model name alone does not tell
 * apart the two Intel kinds on which the gateway's ratio to the bare proxy differed most.
 */
import { cpuKind } from '../../bench/bench-lib';

const block = (vendor: string, family: string, model: string): string =>
  [
    'processor\t: 0',
    `vendor_id\t: ${vendor}`,
    `cpu family\t: ${family}`,
    `model\t\t: ${model}`,
    'model name\t: Some CPU',
    'stepping\t: 1',
  ].join('\n');

describe("a bench run's host kind", () => {
  it('reads the vendor, family and model of the first processor', () => {
    const two = `${block('AuthenticAMD', '26', '2')}\n\n${block('GenuineIntel', '6', '207')}\n`;
    expect(cpuKind(two)).toBe('AMD family 26 model 2');
    expect(cpuKind(block('GenuineIntel', '6', '167'))).toBe('Intel family 6 model 167');
  });

  it('keeps a vendor it does not know by its own name', () => {
    expect(cpuKind(block('HygonGenuine', '24', '0'))).toBe('HygonGenuine family 24 model 0');
  });

  it('is unknown when a field is missing, rather than reading the model name as the model', () => {
    const noModel = block('AuthenticAMD', '25', '1').replace(/^model\t\t: 1\n/m, '');
    expect(cpuKind(noModel)).toBeUndefined();
    expect(cpuKind('')).toBeUndefined();
  });
});
