// Tasks that need execution (issue 18): questions whose answer is a computed value, too long or fiddly to get right
// without running code at the shipped model's scale (12-digit products, modular powers, counts over long strings,
// small simulations). Each kind is a template with a seeded generator, the exact answer (computed here, with BigInt
// where numbers are large) and a reference Python solution (the synthetic tool-use traces of the SFT warm-start run
// it). Splits are by kind: held-out tasks are of kinds never trained on.
import { createRng, type Rng } from '@rlhf-code/model';

export interface ToolTask {
  id: string;
  kind: string;
  question: string;
  /** The exact answer, as the final reply should state it. */
  answer: string;
  /** Python that prints the answer (what a good tool call runs). */
  solution: string;
}

const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng.next() * (hi - lo + 1));
const digits = (rng: Rng, n: number) => String(int(rng, 1, 9)) + Array.from({ length: n - 1 }, () => int(rng, 0, 9)).join('');
const letters = (rng: Rng, n: number, alphabet = 'abcde') => Array.from({ length: n }, () => alphabet[int(rng, 0, alphabet.length - 1)]).join('');
const list = (rng: Rng, n: number, lo: number, hi: number) => Array.from({ length: n }, () => int(rng, lo, hi));

function powMod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}

type Template = (rng: Rng) => Omit<ToolTask, 'id' | 'kind'>;

/** Every kind of task, by name. */
export const TOOL_TASK_KINDS: Record<string, Template> = {
  big_product: (rng) => {
    const [a, b] = [digits(rng, 12), digits(rng, 11)];
    return { question: `What is ${a} * ${b}?`, answer: String(BigInt(a) * BigInt(b)), solution: `print(${a} * ${b})` };
  },
  power_mod: (rng) => {
    const [b, e, m] = [int(rng, 2, 999), int(rng, 100, 100000), int(rng, 1000, 99999)];
    return { question: `What is ${b} to the power ${e}, modulo ${m}?`, answer: String(powMod(BigInt(b), BigInt(e), BigInt(m))), solution: `print(pow(${b}, ${e}, ${m}))` };
  },
  digit_sum_factorial: (rng) => {
    const n = int(rng, 25, 70);
    let f = 1n;
    for (let i = 2n; i <= BigInt(n); i++) f *= i;
    const sum = [...String(f)].reduce((s, d) => s + Number(d), 0);
    return { question: `What is the sum of the digits of ${n}! (${n} factorial)?`, answer: String(sum), solution: `import math\nprint(sum(int(d) for d in str(math.factorial(${n}))))` };
  },
  count_letter: (rng) => {
    const s = letters(rng, int(rng, 50, 80));
    const c = 'abcde'[int(rng, 0, 4)];
    return { question: `How many times does the letter '${c}' appear in '${s}'?`, answer: String([...s].filter((x) => x === c).length), solution: `print('${s}'.count('${c}'))` };
  },
  kth_smallest: (rng) => {
    const xs = list(rng, 20, -500, 500);
    const k = int(rng, 2, 19);
    return { question: `What is the ${k}th smallest number in ${JSON.stringify(xs).replace(/,/g, ', ')}?`, answer: String([...xs].sort((a, b) => a - b)[k - 1]), solution: `print(sorted(${JSON.stringify(xs)})[${k - 1}])` };
  },
  fibonacci: (rng) => {
    const n = int(rng, 60, 120);
    let [a, b] = [1n, 1n];
    for (let i = 3; i <= n; i++) [a, b] = [b, a + b];
    return { question: `With F(1) = F(2) = 1 and F(n) = F(n-1) + F(n-2), what is F(${n})?`, answer: String(b), solution: `a, b = 1, 1\nfor _ in range(${n} - 2):\n    a, b = b, a + b\nprint(b)` };
  },
  collatz_steps: (rng) => {
    let n = int(rng, 1000, 99999);
    const start = n;
    let steps = 0;
    while (n !== 1) {
      n = n % 2 === 0 ? n / 2 : 3 * n + 1;
      steps++;
    }
    return { question: `Starting from ${start}, how many steps of the Collatz rule (halve if even, else 3n + 1) does it take to reach 1?`, answer: String(steps), solution: `n, steps = ${start}, 0\nwhile n != 1:\n    n = n // 2 if n % 2 == 0 else 3 * n + 1\n    steps += 1\nprint(steps)` };
  },
  count_primes: (rng) => {
    const n = int(rng, 1000, 30000);
    const sieve = new Uint8Array(n);
    let count = 0;
    for (let i = 2; i < n; i++) {
      if (sieve[i]) continue;
      count++;
      for (let j = i * i; j < n; j += i) sieve[j] = 1;
    }
    return { question: `How many prime numbers are smaller than ${n}?`, answer: String(count), solution: `n = ${n}\nis_prime = [True] * n\nfor i in range(2, int(n ** 0.5) + 1):\n    if is_prime[i]:\n        is_prime[i * i::i] = [False] * len(range(i * i, n, i))\nprint(sum(is_prime[2:]))` };
  },
  sum_of_squares: (rng) => {
    const xs = list(rng, 25, -99, 99);
    return { question: `What is the sum of the squares of ${JSON.stringify(xs).replace(/,/g, ', ')}?`, answer: String(xs.reduce((s, x) => s + x * x, 0)), solution: `print(sum(x * x for x in ${JSON.stringify(xs)}))` };
  },
  lcm_three: (rng) => {
    const xs = list(rng, 3, 100, 9999).map(BigInt);
    const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
    const l = xs.reduce((a, b) => (a * b) / gcd(a, b));
    return { question: `What is the least common multiple of ${xs.join(', ')}?`, answer: String(l), solution: `import math\nprint(math.lcm(${xs.join(', ')}))` };
  },
  reverse_words: (rng) => {
    const words = Array.from({ length: int(rng, 6, 10) }, () => letters(rng, int(rng, 3, 7), 'abcdefghijklmnopqrstuvwxyz'));
    const s = words.join(' ');
    return { question: `Reverse the order of the words in '${s}'. What is the result?`, answer: [...words].reverse().join(' '), solution: `print(' '.join(reversed('${s}'.split())))` };
  },
  fizz_sum: (rng) => {
    const n = int(rng, 500, 50000);
    const [a, b] = [int(rng, 3, 7), int(rng, 8, 13)];
    let s = 0;
    for (let i = 1; i <= n; i++) if (i % a === 0 || i % b === 0) s += i;
    return { question: `A counter starts at 0. For every i from 1 to ${n}, it adds i when i is divisible by ${a} or by ${b}. What is its final value?`, answer: String(s), solution: `print(sum(i for i in range(1, ${n} + 1) if i % ${a} == 0 or i % ${b} == 0))` };
  },
};

/** Kinds held out for evaluation by default: never trained on. */
export const HELD_OUT_KINDS = ['lcm_three', 'reverse_words', 'fizz_sum'];

/** `perKind` tasks of each of `kinds`, from one seed (the same seed and kinds give the same tasks). */
export function generateToolTasks(kinds: readonly string[], perKind: number, seed: number | string): ToolTask[] {
  const out: ToolTask[] = [];
  for (const kind of kinds) {
    const make = TOOL_TASK_KINDS[kind];
    if (!make) throw new Error(`tool tasks: unknown kind "${kind}" (known: ${Object.keys(TOOL_TASK_KINDS).join(', ')})`);
    const rng = createRng(`tool-tasks:${seed}:${kind}`);
    for (let i = 0; i < perKind; i++) out.push({ id: `${kind}-${i}`, kind, ...make(rng) });
  }
  return out;
}

/**
 * Whether a final reply states the answer: the answer appears in it as a whole token (numbers not inside a longer
 * number, e.g. "43" does not match "143" or "43.5"), case and surrounding punctuation aside.
 */
export function answerMatches(reply: string, answer: string): boolean {
  const esc = answer.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w.-])${esc}(?!\\w|\\.\\d)`).test(reply.toLowerCase());
}
