import { ArithmeticError } from './arithmetic.ts';
import { approximate, reduce } from './rational.ts';

/**
 * Arithmetic as Python evaluates an expression of digits, `.`, `+ - * / ( )` and spaces — what
 * Nexa's `math_calc` allows into `eval`: integers of any size, floats as doubles (`0.1 + 0.2` is
 * `0.30000000000000004`), `/` always a float (`6/3` is `2.0`), `//` floor division, `**` power
 * (binding tighter than a sign on its left: `-2**2` is `-4`; a negative exponent gives a float).
 */

/** An int (bigint) or a float (number), as Python keeps them apart. */
type PythonNumber = bigint | number;

/** The largest integer result kept (in bits): `9**9**9` would take minutes and megabytes. */
const MAX_INTEGER_BITS = 100_000;
const MAX_NESTING = 200;

type Token =
  | { kind: 'number'; value: PythonNumber; column: number }
  | { kind: '+' | '-' | '*' | '/' | '//' | '**' | '(' | ')' | 'end'; column: number };

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < expression.length) {
    const character = expression[index] as string;
    const column = index + 1;
    if (character === ' ') {
      index++;
    } else if (/[0-9.]/.test(character)) {
      const match = /^(?:\d+\.?\d*|\.\d+)/.exec(expression.slice(index));
      if (!match) throw new ArithmeticError('invalid syntax', column);
      const text = match[0];
      if (text.includes('.')) {
        tokens.push({ kind: 'number', value: Number(text), column });
      } else {
        if (/^0+[1-9]/.test(text)) {
          throw new ArithmeticError(
            'leading zeros in decimal integer literals are not permitted',
            column,
          );
        }
        tokens.push({ kind: 'number', value: BigInt(text), column });
      }
      index += text.length;
      if (/[0-9.]/.test(expression[index] ?? '')) {
        throw new ArithmeticError('invalid syntax', index + 1);
      }
    } else if (expression.startsWith('**', index) || expression.startsWith('//', index)) {
      tokens.push({ kind: expression.slice(index, index + 2) as '**' | '//', column });
      index += 2;
    } else if ('+-*/()'.includes(character)) {
      tokens.push({ kind: character as '+' | '-' | '*' | '/' | '(' | ')', column });
      index++;
    } else {
      throw new ArithmeticError(
        `${JSON.stringify(character)} is not allowed (digits, + - * / . ( ) and spaces only)`,
        column,
      );
    }
  }
  tokens.push({ kind: 'end', column: expression.length + 1 });
  return tokens;
}

const toFloat = (value: PythonNumber) => (typeof value === 'bigint' ? Number(value) : value);

function bitLength(value: bigint): number {
  return (value < 0n ? -value : value).toString(2).length;
}

function floorDivide(a: bigint, b: bigint): bigint {
  const quotient = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? quotient - 1n : quotient;
}

function operate(operator: string, a: PythonNumber, b: PythonNumber, column: number): PythonNumber {
  const zero = (b === 0n || b === 0) && (operator === '/' || operator === '//');
  if (zero) {
    throw new ArithmeticError(
      typeof a === 'bigint' && typeof b === 'bigint'
        ? operator === '/'
          ? 'division by zero'
          : 'integer division or modulo by zero'
        : 'float division by zero',
      column,
    );
  }
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    switch (operator) {
      case '+':
        return a + b;
      case '-':
        return a - b;
      case '*':
        if (bitLength(a) + bitLength(b) > MAX_INTEGER_BITS) break;
        return a * b;
      case '//':
        return floorDivide(a, b);
      case '/':
        // Python divides two ints exactly, then rounds once.
        return approximate(reduce({ numerator: a, denominator: b }));
      case '**':
        if (b < 0n) {
          if (a === 0n) {
            throw new ArithmeticError('0.0 cannot be raised to a negative power', column);
          }
          return toFloat(a) ** toFloat(b);
        }
        if (a === 0n || a === 1n || a === -1n || b === 0n) return a ** b;
        if (BigInt(bitLength(a)) * b > BigInt(MAX_INTEGER_BITS)) break;
        return a ** b;
    }
    throw new ArithmeticError(`the result has more than ${MAX_INTEGER_BITS} bits`, column);
  }
  const x = toFloat(a);
  const y = toFloat(b);
  switch (operator) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '//':
      return Math.floor(x / y);
    default: {
      if (x < 0 && !Number.isInteger(y)) {
        throw new ArithmeticError(
          'a negative number raised to a fractional power is a complex number',
          column,
        );
      }
      if (x === 0 && y < 0) {
        throw new ArithmeticError('0.0 cannot be raised to a negative power', column);
      }
      const result = x ** y;
      if (!Number.isFinite(result)) {
        throw new ArithmeticError('numerical result out of range', column);
      }
      return result;
    }
  }
}

/** Evaluates `expression` as Python would (see the module comment). */
export function evaluatePythonArithmetic(expression: string): PythonNumber {
  const tokens = tokenize(expression);
  let position = 0;
  let depth = 0;
  const peek = () => tokens[position] as Token;
  const nest = (column: number) => {
    if (++depth > MAX_NESTING) {
      throw new ArithmeticError(`nested more than ${MAX_NESTING} levels`, column);
    }
  };

  const sum = (): PythonNumber => {
    let value = product();
    while (peek().kind === '+' || peek().kind === '-') {
      const { kind, column } = tokens[position++] as Token;
      value = operate(kind, value, product(), column);
    }
    return value;
  };
  const product = (): PythonNumber => {
    let value = unary();
    while (['*', '/', '//'].includes(peek().kind)) {
      const { kind, column } = tokens[position++] as Token;
      value = operate(kind, value, unary(), column);
    }
    return value;
  };
  const unary = (): PythonNumber => {
    const token = peek();
    if (token.kind === '+' || token.kind === '-') {
      position++;
      nest(token.column);
      const value = unary();
      depth--;
      if (token.kind === '+') return value;
      return typeof value === 'bigint' ? -value : -value;
    }
    return power();
  };
  const power = (): PythonNumber => {
    const base = atom();
    if (peek().kind !== '**') return base;
    const { column } = tokens[position++] as Token;
    nest(column);
    const exponent = unary();
    depth--;
    return operate('**', base, exponent, column);
  };
  const atom = (): PythonNumber => {
    const token = tokens[position++] as Token;
    if (token.kind === 'number') return token.value;
    if (token.kind === '(') {
      nest(token.column);
      const value = sum();
      depth--;
      const close = tokens[position++] as Token;
      if (close.kind !== ')') throw new ArithmeticError("'(' was never closed", token.column);
      return value;
    }
    throw new ArithmeticError(
      token.kind === 'end' ? 'the expression ends too early' : 'invalid syntax',
      token.column,
    );
  };

  const value = sum();
  const rest = peek();
  if (rest.kind !== 'end') {
    throw new ArithmeticError(rest.kind === ')' ? "unmatched ')'" : 'invalid syntax', rest.column);
  }
  return value;
}
