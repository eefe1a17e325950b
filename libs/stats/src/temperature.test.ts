import { bestSamplingTemperature, bestTemperature, temperatureKey } from './temperature';

const points = (rates: Record<number, number>) => Object.entries(rates).map(([t, passAt1]) => ({ temperature: Number(t), passAt1 }));

describe('choosing a temperature on dev pass@1', () => {
  it('picks the argmax', () => {
    expect(bestTemperature(points({ 0: 0.1, 0.2: 0.15, 0.4: 0.3, 0.6: 0.25, 1: 0.05 }))).toBe(0.4);
    expect(bestTemperature(points({ 0: 0.5, 0.2: 0.4 }))).toBe(0);
  });

  it('breaks ties low, whatever the order given, and treats last-bit differences as ties', () => {
    expect(bestTemperature(points({ 0: 0.25, 0.2: 0.25, 0.4: 0.25 }))).toBe(0);
    expect(bestTemperature([{ temperature: 0.8, passAt1: 0.3 }, { temperature: 0.4, passAt1: 0.3 }, { temperature: 0.6, passAt1: 0.1 }])).toBe(0.4);
    expect(bestTemperature([{ temperature: 0.2, passAt1: 0.1 + 0.2 }, { temperature: 0.6, passAt1: 0.3 }])).toBe(0.2);
    expect(bestTemperature(points({ 0: 0, 1: 0 }))).toBe(0);
  });

  it('the sampling temperature is the best above 0, or null when only greedy was tried', () => {
    expect(bestSamplingTemperature(points({ 0: 0.5, 0.2: 0.1, 0.6: 0.3, 1: 0.3 }))).toBe(0.6);
    expect(bestSamplingTemperature(points({ 0: 0.5 }))).toBeNull();
    expect(() => bestTemperature([])).toThrow('no temperatures');
  });

  it('keys eval.json by the number as written', () => {
    expect([0, 0.2, 1, 1.5].map(temperatureKey)).toEqual(['0', '0.2', '1', '1.5']);
  });
});
