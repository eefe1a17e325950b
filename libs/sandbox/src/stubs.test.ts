import { callArity, calledFunctions, parameterNames, STUB_NAMES, stubPrograms } from './stubs';

describe('the function the tests call', () => {
  it('finds it among builtins, methods and setup definitions', () => {
    expect(calledFunctions(['assert set(similar_elements((3, 4), (5, 4))) == set((4,))'])).toEqual(['similar_elements']);
    expect(calledFunctions(['assert math.isclose(area(2), 12.56, rel_tol=0.01)', 'assert area(1) > 3'])).toEqual(['area']);
    expect(calledFunctions(['assert count(helper(3)) == 1'], 'def helper(x):\n    return [x]')).toEqual(['count']);
  });

  it('counts the arguments of its first call, whatever the brackets and strings inside hold', () => {
    expect(callArity('assert f(1, 2) == 3', 'f')).toBe(2);
    expect(callArity("assert f([1, 2], (3, 4), {'a': 1, 'b': 2}, 'x, y') == 0", 'f')).toBe(4);
    expect(callArity('assert f() == 0', 'f')).toBe(0);
    expect(callArity('assert f(g(1, 2),) == 0', 'f')).toBe(1);
    expect(callArity('assert f(x=1, y=2) == 0', 'f')).toBe(2);
    expect(callArity('assert h(1) == 0', 'f')).toBeNull();
  });

  it("reads a reference's parameter names, without annotations and defaults", () => {
    expect(parameterNames('def add(a: int, b=2):\n    return a + b\n', 'add')).toEqual(['a', 'b']);
    expect(parameterNames('x = 1\n', 'add')).toBeNull();
  });
});

describe('stubPrograms', () => {
  const problem = { prompt: '# Write a function add_up(nums, k).\n# assert add_up([1, 2], 3) == 6\n', tests: ['assert add_up([1, 2], 3) == 6', 'assert add_up([], 1) == 1'] };

  it('names every stub as STUB_NAMES lists them', () => {
    expect(stubPrograms(problem).map((s) => s.name)).toEqual(STUB_NAMES);
  });

  it('defines the called function with as many parameters as the tests pass, or the reference names', () => {
    const byName = Object.fromEntries(stubPrograms(problem).map((s) => [s.name, s.response]));
    expect(byName['stub:pass']).toBe('def add_up(a, b):\n    pass\n');
    expect(byName['stub:echo-arg']).toBe('def add_up(a, b):\n    return a\n');
    expect(byName['stub:empty']).toBe('');
    expect(byName['stub:copy-prompt']).toBe(problem.prompt);
    const named = Object.fromEntries(stubPrograms({ ...problem, code: 'def add_up(nums, k):\n    return sum(nums) * k\n' }).map((s) => [s.name, s.response]));
    expect(named['stub:return-empty-list']).toBe('def add_up(nums, k):\n    return []\n');
    expect(named['stub:echo-arg']).toBe('def add_up(nums, k):\n    return nums\n');
  });
});
