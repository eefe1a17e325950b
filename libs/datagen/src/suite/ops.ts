// The operations of the task suite: small functions on ints, strings, lists and dicts (and a few two-step
// compositions), each with several function names, argument names and ways to say what it returns, one reference
// body and a seeded generator of test inputs. generate.ts turns them into MBPP-schema problems.
//
// Two families: single operations, written one by one, and list compositions (LIST_COMPOSITIONS): an aggregate
// (sum, largest, smallest, a list, a count) of a map (the number itself, its square, its double, its absolute value)
// of a filter (all, even, odd, positive, negative numbers), all written as one comprehension. Every part is trained in
// some compositions; the compositions only RL sees put trained parts together in new ways.
//
// Who sees an operation (`seen`):
//   sft   its problems come with references in the sft split, and more of them (without references) in the rl split
//   rl    only in the rl split, never with a reference anywhere: what SFT cannot have taught, RL must find by sampling.
//         These are list compositions whose parts SFT trained elsewhere (the sum of the doubles of the odd numbers:
//         sums, doubles and odd numbers each in other compositions), so they are within reach of sampling. (Single
//         operations that only RL saw, such as `min` of two numbers beside a trained `max`, were tried and never
//         sampled right by the SFT model: EXPERIMENTS.md, 2026-11-27.)
//   dev   in no training split: unseen operations for the dev split (settings are chosen on them)
//   test  in no training split and not in dev: unseen operations, reported on the test split only
// {0}, {1} in `says` and `body` stand for the argument names of the instance.

export type Seen = 'sft' | 'rl' | 'dev' | 'test';
export type Family = 'single' | 'composite';
export type ArgKind = 'int' | 'pos' | 'str' | 'char' | 'list' | 'dict' | 'key';
export type Rand = () => number;

export interface Operation {
  id: string;
  seen: Seen;
  /** single: an operation of its own; composite: one of the list compositions (aggregate . map . filter). */
  family?: Family;
  /** Function names an instance may use. */
  names: string[];
  /** The kind of each argument (it picks the argument's name and how it is introduced in a statement). */
  args: ArgKind[];
  /** What the function returns, as a noun phrase or "whether ..." clause. */
  says: string[];
  /** The reference body (unindented lines). */
  body: string;
  /** One test's argument values, as Python literals. */
  inputs: (r: Rand) => string[];
}

// --- argument names and how a statement introduces them -------------------------------------------------------

/**
 * Names that belong to no operation: half of the instances are called `<adjective>_<noun>`, so that a model has to
 * read what the statement asks and copy the name it gives, not recall an operation from its name.
 */
const ADJECTIVES = 'blue quick happy little magic silent lucky brave tiny fuzzy shiny calm'.split(' ');
const NOUNS = 'robot panda river cloud tiger wizard rocket pebble comet falcon garden lantern'.split(' ');
export const NEUTRAL_NAMES: string[] = ADJECTIVES.flatMap((a) => NOUNS.map((n) => `${a}_${n}`));

/** Argument names by kind; an instance draws distinct ones. */
export const ARG_NAMES: Record<ArgKind, string[]> = {
  int: ['n', 'num', 'x', 'number', 'value', 'a', 'b', 'm', 'y', 'p', 'q'],
  pos: ['n', 'num', 'k', 'count', 'times', 'm', 'size'],
  str: ['s', 'text', 'word', 'string', 'st', 'line', 'phrase'],
  char: ['c', 'ch', 'char', 'letter', 'symbol'],
  list: ['xs', 'nums', 'numbers', 'items', 'lst', 'values', 'arr', 'data'],
  dict: ['d', 'mapping', 'table', 'counts', 'dct', 'scores', 'stock'],
  key: ['key', 'k', 'name', 'label'],
};

export const ARG_NOUNS: Record<ArgKind, string> = {
  int: 'an integer',
  pos: 'a positive integer',
  str: 'a string',
  char: 'a character',
  list: 'a list of integers',
  dict: 'a dictionary',
  key: 'a key',
};

// --- input generators (Python literals) --------------------------------------------------------------------------

const randInt = (r: Rand, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (lo: number, hi: number) => (r: Rand) => String(randInt(r, lo, hi));
const ints = (r: Rand, n: number, lo: number, hi: number) => Array.from({ length: n }, () => randInt(r, lo, hi));
const list = (r: Rand, minLen: number, maxLen: number, lo: number, hi: number) => `[${ints(r, randInt(r, minLen, maxLen), lo, hi).join(', ')}]`;
const WORDS = ('apple river stone cloud green tiger paper music light table water chair house bread smile ' +
  'plant zebra lemon ocean night robot pixel sugar mango piano').split(' ');
const word = (r: Rand) => pick(r, WORDS);
const quote = (s: string) => `'${s}'`;
const sentence = (r: Rand, lo: number, hi: number) => Array.from({ length: randInt(r, lo, hi) }, () => word(r)).join(' ');
const letterOf = (r: Rand, s: string) => s[randInt(r, 0, s.length - 1)];
/** A dict of distinct word keys to ints. */
const dict = (r: Rand, minLen: number, maxLen: number, lo: number, hi: number, distinctValues = false) => {
  const n = randInt(r, minLen, maxLen);
  const keys = [...new Set(Array.from({ length: n * 3 }, () => word(r)))].slice(0, n);
  const values = distinctValues ? [...new Set(ints(r, n * 4, lo, hi))].slice(0, keys.length) : ints(r, keys.length, lo, hi);
  return { keys, literal: `{${keys.map((k, i) => `${quote(k)}: ${values[i]}`).join(', ')}}` };
};
const mixedCase = (r: Rand) => [...word(r)].map((c) => (r() < 0.5 ? c.toUpperCase() : c)).join('');

const list1 = (r: Rand) => [list(r, 2, 7, -9, 20)];

// --- the operations ----------------------------------------------------------------------------------------------

const SINGLE_OPERATIONS: Operation[] = [
  // ints
  { id: 'add', seen: 'sft', names: ['add', 'add_numbers', 'sum_two', 'plus', 'add_two'], args: ['int', 'int'], says: ['the sum of {0} and {1}', '{0} plus {1}', 'the result of adding {0} and {1}'], body: 'return {0} + {1}', inputs: (r) => [int(-50, 50)(r), int(-50, 50)(r)] },
  { id: 'subtract', seen: 'sft', names: ['subtract', 'minus', 'difference', 'sub_numbers', 'take_away'], args: ['int', 'int'], says: ['{0} minus {1}', 'the result of subtracting {1} from {0}', 'the difference {0} - {1}'], body: 'return {0} - {1}', inputs: (r) => [int(-50, 50)(r), int(-50, 50)(r)] },
  { id: 'multiply', seen: 'sft', names: ['multiply', 'times', 'product_of_two', 'mul', 'multiply_numbers'], args: ['int', 'int'], says: ['the product of {0} and {1}', '{0} multiplied by {1}', '{0} times {1}'], body: 'return {0} * {1}', inputs: (r) => [int(-12, 12)(r), int(2, 12)(r)] },
  { id: 'max_of_two', seen: 'sft', names: ['max_of_two', 'larger', 'bigger', 'maximum', 'greater_of'], args: ['int', 'int'], says: ['the larger of {0} and {1}', 'the maximum of the two numbers {0} and {1}', 'whichever of {0} and {1} is bigger'], body: 'return max({0}, {1})', inputs: (r) => [int(-30, 30)(r), int(-30, 30)(r)] },
  { id: 'square', seen: 'sft', names: ['square', 'squared', 'square_of', 'sq', 'square_number'], args: ['int'], says: ['the square of {0}', '{0} multiplied by itself', '{0} squared'], body: 'return {0} * {0}', inputs: (r) => [int(-15, 15)(r)] },
  { id: 'is_even', seen: 'sft', names: ['is_even', 'even', 'check_even', 'is_even_number', 'even_check'], args: ['int'], says: ['whether {0} is even', 'True if {0} is an even number and False otherwise', 'whether {0} is divisible by 2'], body: 'return {0} % 2 == 0', inputs: (r) => [int(-20, 50)(r)] },
  { id: 'floor_div', seen: 'sft', names: ['floor_div', 'int_divide', 'quotient', 'divide_down', 'integer_division'], args: ['int', 'pos'], says: ['the integer division of {0} by {1}', 'the quotient of {0} divided by {1}, rounded down', '{0} divided by {1} without the remainder'], body: 'return {0} // {1}', inputs: (r) => [int(1, 100)(r), int(2, 9)(r)] },
  { id: 'digit_sum', seen: 'sft', names: ['digit_sum', 'sum_digits', 'sum_of_digits', 'add_digits', 'digits_total'], args: ['pos'], says: ['the sum of the digits of {0}', 'the total of the decimal digits of {0}', 'the sum you get by adding up the digits of {0}'], body: 'return sum(int(d) for d in str({0}))', inputs: (r) => [int(10, 99999)(r)] },
  { id: 'factorial', seen: 'sft', names: ['factorial', 'fact', 'factorial_of', 'compute_factorial', 'fac'], args: ['pos'], says: ['the factorial of {0}', '{0}! (the product of 1, 2, ..., {0})', 'the product of all integers from 1 to {0}'], body: 'result = 1\nfor i in range(2, {0} + 1):\n    result *= i\nreturn result', inputs: (r) => [int(2, 9)(r)] },
  { id: 'sum_to_n', seen: 'sft', names: ['sum_to_n', 'sum_upto', 'triangle_number', 'sum_range', 'total_to'], args: ['pos'], says: ['the sum of all integers from 1 to {0}', '1 + 2 + ... + {0}', 'the total of the numbers 1 through {0}'], body: 'return {0} * ({0} + 1) // 2', inputs: (r) => [int(2, 60)(r)] },
  { id: 'double', seen: 'sft', names: ['double', 'twice', 'double_it', 'times_two', 'doubled'], args: ['int'], says: ['twice {0}', 'the double of {0}', '{0} multiplied by 2'], body: 'return {0} * 2', inputs: (r) => [int(-40, 40)(r)] },
  { id: 'abs_diff', seen: 'sft', names: ['abs_diff', 'distance', 'absolute_difference', 'gap', 'diff_abs'], args: ['int', 'int'], says: ['the absolute difference between {0} and {1}', 'the distance between {0} and {1} on the number line', 'how far apart {0} and {1} are'], body: 'return abs({0} - {1})', inputs: (r) => [int(-30, 30)(r), int(-30, 30)(r)] },
  { id: 'min_of_two', seen: 'sft', names: ['min_of_two', 'smaller', 'minimum', 'lesser_of', 'least'], args: ['int', 'int'], says: ['the smaller of {0} and {1}', 'the minimum of the two numbers {0} and {1}', 'whichever of {0} and {1} is smaller'], body: 'return min({0}, {1})', inputs: (r) => [int(-30, 30)(r), int(-30, 30)(r)] },
  { id: 'cube', seen: 'dev', names: ['cube', 'cubed', 'cube_of', 'third_power', 'cube_number'], args: ['int'], says: ['the cube of {0}', '{0} multiplied by itself three times', '{0} cubed'], body: 'return {0} * {0} * {0}', inputs: (r) => [int(-9, 9)(r)] },
  { id: 'is_odd', seen: 'sft', names: ['is_odd', 'odd', 'check_odd', 'is_odd_number', 'odd_check'], args: ['int'], says: ['whether {0} is odd', 'True if {0} is an odd number and False otherwise', 'whether {0} leaves a remainder when divided by 2'], body: 'return {0} % 2 == 1', inputs: (r) => [int(-20, 50)(r)] },
  { id: 'remainder', seen: 'sft', names: ['remainder', 'modulo', 'mod', 'rest_of', 'leftover'], args: ['int', 'pos'], says: ['the remainder of {0} divided by {1}', '{0} modulo {1}', 'what is left over when {0} is divided by {1}'], body: 'return {0} % {1}', inputs: (r) => [int(10, 100)(r), int(3, 9)(r)] },
  { id: 'triple', seen: 'sft', names: ['triple', 'thrice', 'triple_it', 'times_three', 'tripled'], args: ['int'], says: ['three times {0}', 'the triple of {0}', '{0} multiplied by 3'], body: 'return {0} * 3', inputs: (r) => [int(-40, 40)(r)] },
  { id: 'digit_count', seen: 'test', names: ['digit_count', 'count_digits', 'num_digits', 'number_of_digits', 'digit_length'], args: ['pos'], says: ['the number of digits in {0}', 'how many decimal digits {0} has', 'the count of digits of {0}'], body: 'return len(str({0}))', inputs: (r) => [String(randInt(r, 1, 9) * 10 ** randInt(r, 0, 6) + randInt(r, 0, 9))] },
  { id: 'sum_of_two_squares', seen: 'test', names: ['sum_of_two_squares', 'two_squares_total', 'add_squares', 'square_sum', 'sum_squares_two'], args: ['int', 'int'], says: ['the sum of the squares of {0} and {1}', '{0} squared plus {1} squared', 'the square of {0} added to the square of {1}'], body: 'return {0} * {0} + {1} * {1}', inputs: (r) => [int(-12, 12)(r), int(-12, 12)(r)] },
  { id: 'power', seen: 'dev', names: ['power', 'raise_to', 'pow_of', 'exponent', 'to_the_power'], args: ['pos', 'pos'], says: ['{0} raised to the power {1}', '{0} to the power of {1}', 'the {1}-th power of {0}'], body: 'return {0} ** {1}', inputs: (r) => [int(2, 9)(r), int(0, 5)(r)] },

  // strings
  { id: 'reverse_string', seen: 'sft', names: ['reverse_string', 'reverse', 'reversed_text', 'flip', 'backwards'], args: ['str'], says: ['the string {0} reversed', '{0} with its characters in reverse order', 'the characters of {0} backwards'], body: 'return {0}[::-1]', inputs: (r) => [quote(word(r) + word(r).slice(0, randInt(r, 0, 3)))] },
  { id: 'to_upper', seen: 'sft', names: ['to_upper', 'upper_case', 'shout', 'make_upper', 'uppercase'], args: ['str'], says: ['{0} in upper case', 'the string {0} converted to uppercase', '{0} with every letter capitalised'], body: 'return {0}.upper()', inputs: (r) => [quote(sentence(r, 1, 2))] },
  { id: 'string_length', seen: 'sft', names: ['string_length', 'length', 'str_len', 'count_chars', 'text_length'], args: ['str'], says: ['the number of characters in {0}', 'the length of the string {0}', 'how many characters {0} has'], body: 'return len({0})', inputs: (r) => [quote(sentence(r, 1, 3))] },
  { id: 'count_vowels', seen: 'sft', names: ['count_vowels', 'vowel_count', 'num_vowels', 'vowels', 'how_many_vowels'], args: ['str'], says: ['the number of vowels (a, e, i, o, u) in {0}', 'how many vowels {0} contains', 'the count of the letters a, e, i, o and u in {0}'], body: "return sum(1 for ch in {0} if ch in 'aeiou')", inputs: (r) => [quote(sentence(r, 1, 3))] },
  { id: 'first_char', seen: 'sft', names: ['first_char', 'first_letter', 'head_char', 'initial', 'start_char'], args: ['str'], says: ['the first character of {0}', 'the character at the start of {0}', 'the first letter of the string {0}'], body: 'return {0}[0]', inputs: (r) => [quote(word(r))] },
  { id: 'repeat_string', seen: 'sft', names: ['repeat_string', 'repeat', 'echo_times', 'copies', 'repeat_text'], args: ['str', 'pos'], says: ['{0} repeated {1} times', 'the string made of {1} copies of {0}', '{0} written {1} times in a row'], body: 'return {0} * {1}', inputs: (r) => [quote(word(r).slice(0, randInt(r, 2, 4))), int(2, 4)(r)] },
  { id: 'concat_strings', seen: 'sft', names: ['concat_strings', 'join_two', 'concatenate', 'glue', 'combine'], args: ['str', 'str'], says: ['the concatenation of {0} and {1}', '{0} followed by {1}', 'the string {0} with {1} appended'], body: 'return {0} + {1}', inputs: (r) => [quote(word(r)), quote(word(r))] },
  { id: 'is_palindrome', seen: 'sft', names: ['is_palindrome', 'palindrome', 'check_palindrome', 'reads_same', 'is_mirror'], args: ['str'], says: ['whether {0} is a palindrome', 'True if {0} reads the same backwards as forwards, otherwise False', 'whether {0} equals its own reverse'], body: 'return {0} == {0}[::-1]', inputs: (r) => {
    const w = word(r).slice(0, randInt(r, 2, 4));
    return [quote(r() < 0.5 ? w + [...w].reverse().join('').slice(randInt(r, 0, 1)) : w + word(r).slice(0, 2))];
  } },
  { id: 'count_char', seen: 'sft', names: ['count_char', 'char_count', 'occurrences', 'count_letter', 'how_many'], args: ['str', 'char'], says: ['how many times the character {1} occurs in {0}', 'the number of occurrences of {1} in {0}', 'the count of {1} in the string {0}'], body: 'return {0}.count({1})', inputs: (r) => {
    const s = sentence(r, 1, 3);
    return [quote(s), quote(r() < 0.8 ? letterOf(r, s.replace(/ /g, '')) : 'z')];
  } },
  { id: 'word_count', seen: 'sft', names: ['word_count', 'count_words', 'num_words', 'words_in', 'how_many_words'], args: ['str'], says: ['the number of words in the sentence {0}', 'how many space-separated words {0} has', 'the count of words in {0}'], body: 'return len({0}.split())', inputs: (r) => [quote(sentence(r, 1, 6))] },
  { id: 'remove_char', seen: 'sft', names: ['remove_char', 'strip_char', 'delete_char', 'without_char', 'drop_letter'], args: ['str', 'char'], says: ['the string {0} with every {1} removed', '{0} without any occurrence of the character {1}', 'a copy of {0} from which all the characters {1} are deleted'], body: "return {0}.replace({1}, '')", inputs: (r) => {
    const s = sentence(r, 1, 2);
    return [quote(s), quote(letterOf(r, s.replace(/ /g, '')))];
  } },
  { id: 'starts_with', seen: 'sft', names: ['starts_with', 'has_prefix', 'begins_with', 'check_prefix', 'startswith'], args: ['str', 'str'], says: ['whether {0} starts with {1}', 'True if the string {0} begins with {1}, else False', 'whether {1} is a prefix of {0}'], body: 'return {0}.startswith({1})', inputs: (r) => {
    const s = word(r) + word(r);
    return [quote(s), quote(r() < 0.5 ? s.slice(0, randInt(r, 1, 4)) : word(r).slice(0, randInt(r, 1, 3)))];
  } },
  { id: 'to_lower', seen: 'test', names: ['to_lower', 'lower_case', 'whisper', 'make_lower', 'lowercase'], args: ['str'], says: ['{0} in lower case', 'the string {0} converted to lowercase', '{0} with no capital letters left'], body: 'return {0}.lower()', inputs: (r) => [quote(mixedCase(r))] },
  { id: 'last_char', seen: 'sft', names: ['last_char', 'last_letter', 'tail_char', 'final_char', 'end_char'], args: ['str'], says: ['the last character of {0}', 'the character at the end of {0}', 'the last letter of the string {0}'], body: 'return {0}[-1]', inputs: (r) => [quote(word(r))] },
  { id: 'ends_with', seen: 'sft', names: ['ends_with', 'has_suffix', 'finishes_with', 'check_suffix', 'endswith'], args: ['str', 'str'], says: ['whether {0} ends with {1}', 'True if the string {0} ends in {1}, else False', 'whether {1} is a suffix of {0}'], body: 'return {0}.endswith({1})', inputs: (r) => {
    const s = word(r) + word(r);
    return [quote(s), quote(r() < 0.5 ? s.slice(-randInt(r, 1, 4)) : word(r).slice(-randInt(r, 1, 3)))];
  } },
  { id: 'reverse_words', seen: 'test', names: ['reverse_words', 'words_backwards', 'flip_words', 'reverse_sentence', 'backward_words'], args: ['str'], says: ['the words of {0} in reverse order, separated by single spaces', 'the sentence {0} with the order of its words reversed', '{0} with its last word first and its first word last'], body: "return ' '.join({0}.split()[::-1])", inputs: (r) => [quote(sentence(r, 2, 4))] },
  { id: 'first_word', seen: 'dev', names: ['first_word', 'head_word', 'opening_word', 'leading_word', 'word_one'], args: ['str'], says: ['the first word of the sentence {0}', 'the word {0} starts with', 'the first space-separated word of {0}'], body: 'return {0}.split()[0]', inputs: (r) => [quote(sentence(r, 2, 4))] },

  // lists
  { id: 'list_length', seen: 'sft', names: ['list_length', 'count_items', 'size_of', 'num_elements', 'list_len'], args: ['list'], says: ['the number of elements in {0}', 'the length of the list {0}', 'how many items {0} holds'], body: 'return len({0})', inputs: (r) => [list(r, 2, 8, -9, 20)] },
  { id: 'reverse_list', seen: 'sft', names: ['reverse_list', 'reversed_list', 'flip_list', 'backwards_list', 'list_reverse'], args: ['list'], says: ['{0} in reverse order', 'a new list with the elements of {0} reversed', 'the elements of {0} from last to first'], body: 'return {0}[::-1]', inputs: list1 },
  { id: 'sort_list', seen: 'sft', names: ['sort_list', 'sorted_list', 'ascending', 'order_list', 'sort_numbers'], args: ['list'], says: ['{0} sorted in ascending order', 'a sorted copy of {0}, smallest first', 'the numbers of {0} from smallest to largest'], body: 'return sorted({0})', inputs: list1 },
  { id: 'count_occurrences', seen: 'sft', names: ['count_occurrences', 'count_of', 'frequency', 'times_in', 'count_value'], args: ['list', 'int'], says: ['how many times {1} appears in {0}', 'the number of occurrences of {1} in the list {0}', 'the count of elements of {0} equal to {1}'], body: 'return {0}.count({1})', inputs: (r) => {
    const xs = ints(r, randInt(r, 3, 8), 0, 5);
    return [`[${xs.join(', ')}]`, String(r() < 0.8 ? pick(r, xs) : 7)];
  } },
  { id: 'first_element', seen: 'sft', names: ['first_element', 'head', 'first_item', 'get_first', 'front'], args: ['list'], says: ['the first element of {0}', 'the item at the front of the list {0}', 'the element of {0} at index 0'], body: 'return {0}[0]', inputs: list1 },
  { id: 'contains', seen: 'sft', names: ['contains', 'includes', 'has_value', 'is_member', 'in_list'], args: ['list', 'int'], says: ['whether {1} is in the list {0}', 'True if {0} contains {1}, otherwise False', 'whether the value {1} occurs in {0}'], body: 'return {1} in {0}', inputs: (r) => {
    const xs = ints(r, randInt(r, 2, 6), 0, 9);
    return [`[${xs.join(', ')}]`, String(r() < 0.5 ? pick(r, xs) : randInt(r, 0, 9))];
  } },
  { id: 'take_first', seen: 'sft', names: ['take_first', 'first_n', 'head_n', 'prefix_of', 'take'], args: ['list', 'pos'], says: ['the first {1} elements of {0}', 'a list of the leading {1} items of {0}', 'the first {1} numbers of the list {0}'], body: 'return {0}[:{1}]', inputs: (r) => [list(r, 4, 7, -9, 20), int(1, 3)(r)] },
  { id: 'max_minus_min', seen: 'sft', names: ['max_minus_min', 'spread', 'value_range', 'range_of', 'span'], args: ['list'], says: ['the difference between the largest and the smallest number in {0}', 'the maximum of {0} minus its minimum', 'how far the biggest value of {0} is from the smallest'], body: 'return max({0}) - min({0})', inputs: list1 },
  { id: 'list_product', seen: 'sft', names: ['list_product', 'product', 'multiply_all', 'product_of', 'prod_list'], args: ['list'], says: ['the product of the numbers in {0}', 'all the elements of {0} multiplied together', 'the result of multiplying every item of the list {0}'], body: 'result = 1\nfor x in {0}:\n    result *= x\nreturn result', inputs: (r) => [list(r, 2, 5, -5, 9)] },
  { id: 'sort_descending', seen: 'sft', names: ['sort_descending', 'sorted_desc', 'descending', 'order_desc', 'sort_reverse'], args: ['list'], says: ['{0} sorted in descending order', 'a sorted copy of {0}, largest first', 'the numbers of {0} from largest to smallest'], body: 'return sorted({0}, reverse=True)', inputs: list1 },
  { id: 'last_element', seen: 'sft', names: ['last_element', 'tail', 'last_item', 'get_last', 'back'], args: ['list'], says: ['the last element of {0}', 'the item at the end of the list {0}', 'the element of {0} at index -1'], body: 'return {0}[-1]', inputs: list1 },
  { id: 'remove_duplicates', seen: 'test', names: ['remove_duplicates', 'dedupe', 'unique', 'distinct', 'drop_repeats'], args: ['list'], says: ['{0} without duplicates, keeping the first occurrence of each number in order', 'the distinct elements of {0} in the order they first appear', 'a copy of {0} in which every value occurs once, in its original order'], body: 'result = []\nfor x in {0}:\n    if x not in result:\n        result.append(x)\nreturn result', inputs: (r) => [`[${ints(r, randInt(r, 4, 8), 0, 5).join(', ')}]`] },
  { id: 'drop_first', seen: 'dev', names: ['drop_first', 'skip_n', 'without_first', 'after_n', 'drop'], args: ['list', 'pos'], says: ['{0} without its first {1} elements', 'the elements of {0} after the first {1}', 'a list of all but the first {1} items of {0}'], body: 'return {0}[{1}:]', inputs: (r) => [list(r, 4, 7, -9, 20), int(1, 3)(r)] },

  // dicts
  { id: 'dict_get', seen: 'sft', names: ['dict_get', 'lookup', 'get_value', 'value_of', 'fetch'], args: ['dict', 'key'], says: ['the value stored under the key {1} in the dictionary {0}', 'the value that {0} maps {1} to', '{0}[{1}], the value of the key {1}'], body: 'return {0}[{1}]', inputs: (r) => {
    const d = dict(r, 2, 4, 0, 50);
    return [d.literal, quote(pick(r, d.keys))];
  } },
  { id: 'dict_size', seen: 'sft', names: ['dict_size', 'count_keys', 'num_keys', 'dict_length', 'size_of_dict'], args: ['dict'], says: ['the number of keys in the dictionary {0}', 'how many entries {0} has', 'the size of the dictionary {0}'], body: 'return len({0})', inputs: (r) => [dict(r, 1, 5, 0, 9).literal] },
  { id: 'sum_values', seen: 'sft', names: ['sum_values', 'values_total', 'total_value', 'add_values', 'sum_of_values'], args: ['dict'], says: ['the sum of the values of the dictionary {0}', 'the total of all the values in {0}', 'the sum of every value stored in {0}'], body: 'return sum({0}.values())', inputs: (r) => [dict(r, 2, 4, 0, 30).literal] },
  { id: 'has_key', seen: 'sft', names: ['has_key', 'key_exists', 'contains_key', 'in_dict', 'is_key'], args: ['dict', 'key'], says: ['whether the dictionary {0} has the key {1}', 'True if {1} is a key of {0}, otherwise False', 'whether {0} contains an entry for {1}'], body: 'return {1} in {0}', inputs: (r) => {
    const d = dict(r, 1, 4, 0, 9);
    return [d.literal, quote(r() < 0.5 ? pick(r, d.keys) : word(r))];
  } },
  { id: 'sorted_keys', seen: 'sft', names: ['sorted_keys', 'keys_in_order', 'ordered_keys', 'key_list', 'sort_keys'], args: ['dict'], says: ['the keys of the dictionary {0} as a sorted list', 'a list of the keys of {0} in alphabetical order', 'the sorted keys of {0}'], body: 'return sorted({0})', inputs: (r) => [dict(r, 2, 4, 0, 9).literal] },
  { id: 'char_frequency', seen: 'sft', names: ['char_frequency', 'letter_counts', 'count_each', 'char_histogram', 'frequencies'], args: ['str'], says: ['a dictionary that maps each character of {0} to the number of times it occurs', 'the count of every character of {0}, as a dictionary', 'a dictionary from the characters of {0} to how often each appears'], body: 'counts = {}\nfor ch in {0}:\n    counts[ch] = counts.get(ch, 0) + 1\nreturn counts', inputs: (r) => [quote(word(r).slice(0, randInt(r, 3, 5)))] },
  { id: 'max_value', seen: 'sft', names: ['max_value', 'largest_value', 'top_value', 'highest_value', 'best_score'], args: ['dict'], says: ['the largest value in the dictionary {0}', 'the maximum of the values of {0}', 'the highest value stored in {0}'], body: 'return max({0}.values())', inputs: (r) => [dict(r, 2, 4, 0, 30).literal] },
  { id: 'invert_dict', seen: 'test', names: ['invert_dict', 'swap_keys_values', 'reverse_mapping', 'flip_dict', 'inverse'], args: ['dict'], says: ['the dictionary {0} with its keys and values swapped', 'a dictionary mapping each value of {0} back to its key', 'the inverse of the mapping {0}'], body: 'return {v: k for k, v in {0}.items()}', inputs: (r) => [dict(r, 1, 3, 0, 9, true).literal] },
  { id: 'min_value', seen: 'sft', names: ['min_value', 'smallest_value', 'lowest_value', 'bottom_value', 'worst_score'], args: ['dict'], says: ['the smallest value in the dictionary {0}', 'the minimum of the values of {0}', 'the lowest value stored in {0}'], body: 'return min({0}.values())', inputs: (r) => [dict(r, 2, 4, 0, 30).literal] },
];

// --- list compositions -------------------------------------------------------------------------------------------

type Aggregate = 'sum' | 'max' | 'min' | 'list' | 'count';
type Mapping = 'id' | 'square' | 'double' | 'abs';
type Filter = 'all' | 'even' | 'odd' | 'positive' | 'negative';

const AGGREGATE: Record<Aggregate, { say: string; code: (expr: string, filter: string, list: string) => string; name: string[] }> = {
  sum: { say: 'the sum of', code: (e, f, l) => `return sum(${e} for x in ${l}${f})`, name: ['sum', 'total'] },
  max: { say: 'the largest of', code: (e, f, l) => `return max(${e} for x in ${l}${f})`, name: ['max', 'largest'] },
  min: { say: 'the smallest of', code: (e, f, l) => `return min(${e} for x in ${l}${f})`, name: ['min', 'smallest'] },
  list: { say: 'a list of', code: (e, f, l) => `return [${e} for x in ${l}${f}]`, name: ['list', 'collect'] },
  count: { say: 'the number of', code: (_e, f, l) => `return len([x for x in ${l}${f}])`, name: ['count', 'how_many'] },
};
const MAPPING: Record<Mapping, { say: string; expr: string; name: string }> = {
  id: { say: 'the', expr: 'x', name: '' },
  square: { say: 'the squares of the', expr: 'x * x', name: 'squares' },
  double: { say: 'the doubles of the', expr: 'x * 2', name: 'doubles' },
  abs: { say: 'the absolute values of the', expr: 'abs(x)', name: 'abs' },
};
const FILTER: Record<Filter, { say: string; code: string; name: string }> = {
  all: { say: '', code: '', name: '' },
  even: { say: 'even ', code: ' if x % 2 == 0', name: 'even' },
  odd: { say: 'odd ', code: ' if x % 2 == 1', name: 'odd' },
  positive: { say: 'positive ', code: ' if x > 0', name: 'positive' },
  negative: { say: 'negative ', code: ' if x < 0', name: 'negative' },
};

/**
 * Who sees which composition (the rest are sft): `aggregate.mapping.filter`, `count.filter`. No composition here computes
 * the function of a more-trained one on the suite's inputs (generate.ts's alias check): the absolute value of positive
 * numbers is the number, the largest of the positive numbers is the largest of all, the smallest of the negative ones
 * the smallest of all. So max.id.positive, min.abs.positive, min.double.all (once rl-only), min.id.all, min.id.negative
 * and list.abs.positive (once unseen) are sft, and max.abs.negative, min.abs.odd, min.double.positive (rl),
 * min.abs.negative (dev), min.abs.even and list.abs.negative (test) took their places.
 */
const COMPOSITION_SEEN: Record<string, Seen> = Object.fromEntries([
  ...['sum.double.odd', 'sum.abs.negative', 'sum.square.positive', 'sum.id.negative', 'sum.square.all', 'max.square.even', 'max.abs.all', 'max.double.negative',
    'max.id.odd', 'max.abs.negative', 'min.square.odd', 'min.abs.odd', 'min.double.positive', 'min.id.even', 'list.abs.even', 'list.double.positive',
    'list.square.negative', 'list.id.odd', 'list.double.all', 'count.even'].map((k) => [k, 'rl' as Seen]),
  ...['sum.abs.even', 'max.square.odd', 'min.abs.negative', 'list.abs.all', 'count.negative', 'min.double.even', 'sum.double.positive', 'list.square.odd'].map((k) => [k, 'dev' as Seen]),
  ...['sum.abs.odd', 'max.double.even', 'min.square.negative', 'list.abs.negative', 'count.positive', 'sum.square.negative', 'max.abs.odd', 'min.abs.even',
    'list.double.even', 'sum.id.odd'].map((k) => [k, 'test' as Seen]),
]);

function composition(a: Aggregate, m: Mapping, f: Filter): Operation {
  const key = a === 'count' ? `count.${f}` : `${a}.${m}.${f}`;
  const what = a === 'count' ? `${FILTER[f].say}` : `${MAPPING[m].say} ${FILTER[f].say}`;
  const part = (...xs: string[]) => xs.filter(Boolean).join('_');
  const [a1, a2] = AGGREGATE[a].name;
  const mf = a === 'count' ? part(FILTER[f].name) : part(MAPPING[m].name, FILTER[f].name);
  const fm = a === 'count' ? part(FILTER[f].name) : part(FILTER[f].name, MAPPING[m].name);
  return {
    id: key.replace(/\./g, '_'),
    seen: COMPOSITION_SEEN[key] ?? 'sft',
    family: 'composite',
    names: [part(a1, mf || 'all'), part(a2, 'of', fm || 'all'), part('get', a1, mf || 'values'), part(fm || 'all', a1), part('compute', a2, mf || 'items')],
    args: ['list'],
    says: [`${AGGREGATE[a].say} ${what}numbers in {0}`, `${AGGREGATE[a].say} ${what}elements of {0}`, `${AGGREGATE[a].say} ${what}values in the list {0}`],
    body: AGGREGATE[a].code(MAPPING[m].expr, FILTER[f].code, '{0}'),
    inputs: (r) => [list(r, 3, 8, -15, 15)],
  };
}

/** Every composition but the list of the numbers themselves (that is the argument) and the count of all of them (list_length). */
const LIST_COMPOSITIONS: Operation[] = (['sum', 'max', 'min', 'list', 'count'] as Aggregate[]).flatMap((a) =>
  (a === 'count' ? (['id'] as Mapping[]) : (['id', 'square', 'double', 'abs'] as Mapping[])).flatMap((m) =>
    (['all', 'even', 'odd', 'positive', 'negative'] as Filter[]).filter((f) => !((a === 'list' && m === 'id' && f === 'all') || (a === 'count' && f === 'all'))).map((f) => composition(a, m, f)),
  ),
);

/** Every operation of the suite: the single ones, then the compositions. */
export const OPERATIONS: Operation[] = [...SINGLE_OPERATIONS.map((op) => ({ ...op, family: 'single' as const })), ...LIST_COMPOSITIONS];
