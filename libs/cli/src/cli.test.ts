import { Command } from 'commander';
import { z } from 'zod';
import { runCli } from './command';
import { flagName, parseJsonFlag, UsageError } from './flags';

describe('cli helpers', () => {
  it('turns option keys into flag names', () => {
    expect(flagName('maxNewTokens')).toBe('--max-new-tokens');
    expect(flagName('seed')).toBe('--seed');
  });

  it('parses JSON flags; errors name the flag and the element', () => {
    const ids = z.array(z.array(z.number().int()));
    expect(parseJsonFlag('--ids', '[[1,2],[3]]', ids)).toEqual([[1, 2], [3]]);
    expect(() => parseJsonFlag('--ids', '[[1,2', ids)).toThrow('--ids: not valid JSON: [[1,2');
    expect(() => parseJsonFlag('--ids', '[[1,"x"]]', ids)).toThrow(/^--ids\[0\]\[1\]: /);
  });

  it('runCli prints "<app>: error: <message>" without a stack trace and sets exit code 1', async () => {
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const cleanup = jest.fn();
    const program = new Command('demo').exitOverride().action(() => {
      throw new UsageError('--model: folder x does not exist');
    });
    process.argv = ['node', 'demo'];
    await runCli(program, cleanup);
    expect(err).toHaveBeenCalledWith('demo: error: --model: folder x does not exist\n');
    expect(err.mock.calls.some(([s]) => String(s).includes('at '))).toBe(false);
    expect(process.exitCode).toBe(1);
    expect(cleanup).toHaveBeenCalled();
    process.exitCode = 0;
    err.mockRestore();
  });

  it('runCli prefixes every line of a several-problem message', async () => {
    const err = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const program = new Command('demo').exitOverride().action(() => {
      throw new UsageError('--a: bad\n--b: worse');
    });
    process.argv = ['node', 'demo'];
    await runCli(program);
    expect(err).toHaveBeenCalledWith('demo: error: --a: bad\ndemo: error: --b: worse\n');
    process.exitCode = 0;
    err.mockRestore();
  });
});
