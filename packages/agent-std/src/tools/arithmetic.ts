import {
  add,
  divide,
  multiply,
  negate,
  type Rational,
  rationalFromDecimal,
  reduce,
  subtract,
} from './rational.ts';

/** Thrown by {@link evaluateArithmetic}; `column` is 1-based in the expression. */
export class ArithmeticError extends Error {
  readonly column: number;
  constructor(message: string, column: number) {
    super(message);
    this.name = 'ArithmeticError';
    this.column = column;
  }
}

/** Longest expression accepted, and deepest nesting of parentheses and unary signs. */
const MAX_EXPRESSION_LENGTH = 10_000;
const MAX_NESTING = 200;

type Token =
  | { kind: 'number'; value: Rational; column: number; text: string }
  | { kind: 'operator'; value: '+' | '-' | '*' | '/'; column: number }
  | { kind: 'open' | 'close'; column: number }
  | { kind: 'end'; column: number };

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < expression.length) {
    const character = expression[index] as string;
    const column = index + 1;
    if (character === ' ' || character === '\t') {
      index++;
    } else if (/[0-9.]/.test(character)) {
      const start = index;
      while (index < expression.length && /[0-9.]/.test(expression[index] as string)) index++;
      const text = expression.slice(start, index);
      if (!/^(\d+(\.\d*)?|\.\d+)$/.test(text)) {
        throw new ArithmeticError(`"${text}" at column ${column} is not a number`, column);
      }
      tokens.push({ kind: 'number', value: rationalFromDecimal(text), column, text });
    } else if (character === '*' && expression[index + 1] === '*') {
      throw new ArithmeticError(
        `"**" (power) at column ${column} is not supported; only + - * / and parentheses`,
        column,
      );
    } else if (character === '/' && expression[index + 1] === '/') {
      throw new ArithmeticError(
        `"//" (floor division) at column ${column} is not supported; only + - * / and parentheses`,
        column,
      );
    } else if (character === '+' || character === '-' || character === '*' || character === '/') {
      tokens.push({ kind: 'operator', value: character, column });
      index++;
    } else if (character === '(') {
      tokens.push({ kind: 'open', column });
      index++;
    } else if (character === ')') {
      tokens.push({ kind: 'close', column });
      index++;
    } else if (/[A-Za-z_]/.test(character)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(expression.slice(index))?.[0] ?? character;
      throw new ArithmeticError(
        `names such as "${name}" (column ${column}) are not allowed; only digits, + - * / . ( ) and spaces`,
        column,
      );
    } else {
      const shown = String.fromCodePoint(expression.codePointAt(index) ?? 0);
      throw new ArithmeticError(
        `"${shown}" at column ${column} is not allowed; only digits, + - * / . ( ) and spaces`,
        column,
      );
    }
  }
  tokens.push({ kind: 'end', column: expression.length + 1 });
  return tokens;
}

/**
 * Evaluates an arithmetic expression over digits, `+ - * / . ( )` and spaces with the usual
 * precedence (`*` `/` before `+` `-`, left to right) and unary `+`/`-`, exactly: numbers are
 * fractions of integers of any size, so `0.1 + 0.2` is 3/10 and `99999999999999999999 *
 * 99999999999999999999` every one of its 40 digits. A recursive-descent parser — nothing is ever
 * handed to `eval`. Errors name the column: disallowed characters, `**`, names, empty
 * parentheses, missing operands, unbalanced parentheses, division by zero. The result is in
 * lowest terms.
 */
export function evaluateArithmetic(expression: string): Rational {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ArithmeticError(
      `the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`,
      MAX_EXPRESSION_LENGTH + 1,
    );
  }
  const tokens = tokenize(expression);
  if (tokens.length === 1) throw new ArithmeticError('the expression is empty', 1);
  let position = 0;
  let depth = 0;
  const peek = () => tokens[position] as Token;
  const describe = (token: Token) =>
    token.kind === 'end'
      ? 'the end of the expression'
      : `"${token.kind === 'number' ? token.text : token.kind === 'operator' ? token.value : token.kind === 'open' ? '(' : ')'}" at column ${token.column}`;

  const nest = (column: number) => {
    depth++;
    if (depth > MAX_NESTING) {
      throw new ArithmeticError(`nesting deeper than ${MAX_NESTING} levels`, column);
    }
  };

  // expression := term (('+' | '-') term)*
  const parseExpression = (): Rational => {
    let value = parseTerm();
    for (;;) {
      const token = peek();
      if (token.kind !== 'operator' || (token.value !== '+' && token.value !== '-')) return value;
      position++;
      const right = parseTerm();
      value = token.value === '+' ? add(value, right) : subtract(value, right);
    }
  };
  // term := unary (('*' | '/') unary)*
  const parseTerm = (): Rational => {
    let value = parseUnary();
    for (;;) {
      const token = peek();
      if (token.kind !== 'operator' || (token.value !== '*' && token.value !== '/')) return value;
      position++;
      const right = parseUnary();
      if (token.value === '/' && right.numerator === 0n) {
        throw new ArithmeticError(`division by zero at column ${token.column}`, token.column);
      }
      value = token.value === '*' ? multiply(value, right) : divide(value, right);
    }
  };
  // unary := ('+' | '-') unary | primary
  const parseUnary = (): Rational => {
    const token = peek();
    if (token.kind === 'operator' && (token.value === '-' || token.value === '+')) {
      position++;
      nest(token.column);
      const value = parseUnary();
      depth--;
      return token.value === '-' ? negate(value) : value;
    }
    return parsePrimary();
  };
  // primary := number | '(' expression ')'
  const parsePrimary = (): Rational => {
    const token = peek();
    if (token.kind === 'number') {
      position++;
      return token.value;
    }
    if (token.kind === 'open') {
      position++;
      if (peek().kind === 'close') {
        throw new ArithmeticError(`empty parentheses at column ${token.column}`, token.column);
      }
      nest(token.column);
      const value = parseExpression();
      depth--;
      const close = peek();
      if (close.kind !== 'close') {
        throw new ArithmeticError(
          `expected ")" to close "(" at column ${token.column}, found ${describe(close)}`,
          close.column,
        );
      }
      position++;
      return value;
    }
    throw new ArithmeticError(`expected a number or "(", found ${describe(token)}`, token.column);
  };

  const value = parseExpression();
  const rest = peek();
  if (rest.kind !== 'end') {
    const message =
      rest.kind === 'close'
        ? `")" at column ${rest.column} has no matching "("`
        : `expected an operator, found ${describe(rest)}`;
    throw new ArithmeticError(message, rest.column);
  }
  return reduce(value);
}
