// The bench's flags: defaults, the A/B combinations that make sense, and the typos that must not
// silently measure something else.
import { describe, expect, it } from 'vitest';
import { pairOrder, parseArgs } from './args.mjs';

describe('parseArgs', () => {
  it('keeps the defaults the bench always had', () => {
    expect(parseArgs([])).toEqual({
      rtt: 50,
      handshake: 2,
      runs: 10,
      cpuThrottling: 1,
      trace: undefined,
      base: undefined,
      a: undefined,
      b: undefined,
    });
  });

  it('takes 0 ms RTT, throttling, a trace file and a base revision', () => {
    expect(parseArgs(['--rtt=0', '--cpu-throttling=4', '--runs=12', '--trace=out.json', '--base=6c9b94f'])).toMatchObject({
      rtt: 0,
      cpuThrottling: 4,
      runs: 12,
      trace: 'out.json',
      base: '6c9b94f',
    });
  });

  it('takes two folders, or one folder against dist/', () => {
    expect(parseArgs(['--a=old/dist', '--b=new/dist'])).toMatchObject({ a: 'old/dist', b: 'new/dist' });
    // Alone, --b names the one build to measure.
    expect(parseArgs(['--b=old/dist'])).toMatchObject({ a: undefined, base: undefined, b: 'old/dist' });
    expect(parseArgs(['--a=old/dist'])).toMatchObject({ a: 'old/dist', b: undefined });
  });

  it.each([
    [['--rtt'], /malformed/],
    [['--rtt=fast'], /number/],
    [['--rtt=-5'], /number/],
    [['--runs=0'], /runs/],
    [['--runs=2.5'], /runs/],
    [['--cpu-throttling=0.5'], /cpu-throttling/],
    [['--cpu=4'], /Unknown/],
    [['--rtt=0', '--rtt=50'], /twice/],
    [['--base=main', '--a=dist'], /not both/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });
});

describe('pairOrder', () => {
  it('alternates which build goes first', () => {
    expect([0, 1, 2, 3].map(pairOrder)).toEqual([
      ['A', 'B'],
      ['B', 'A'],
      ['A', 'B'],
      ['B', 'A'],
    ]);
  });
});
