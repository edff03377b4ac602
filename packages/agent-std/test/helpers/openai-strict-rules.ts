// A checker of OpenAI's published rules for strict function calling (`strict: true`), written
// from the rules, not from our converter: the "Supported schemas" section of OpenAI's Structured
// Outputs guide, which function calling's strict mode follows. It returns every violation found,
// as `path: what is wrong`, so a test can show them all.
//
// The rules:
// - the root is an object, and not `anyOf`;
// - every object sets `additionalProperties: false` and lists every property in `required`
//   (an optional field is written as a union with null);
// - types: string, number, boolean, integer, object, array, null (in a union), enum, anyOf;
//   every branch of `anyOf` follows these rules too;
// - supported keywords: for strings `pattern` and `format` (date-time, time, date, duration,
//   email, hostname, ipv4, ipv6, uuid); for numbers `multipleOf`, `maximum`,
//   `exclusiveMaximum`, `minimum`, `exclusiveMinimum`; for arrays `minItems`, `maxItems`;
//   `description`, `enum`, `const`, definitions (`$defs`) and `$ref` to them; anything else (a
//   `default`, `propertyNames`, `minLength`, `allOf`, `not`, `if`, `patternProperties`, …) is
//   refused;
// - at most 5000 object properties in all and 10 levels of object nesting;
// - at most 120 000 characters in all property names, definition names, enum values and const
//   values; at most 1000 enum values in all, and a string enum of more than 250 values at most
//   15 000 characters;
// - the function name has 1 to 64 letters, digits, underscores or dashes.

type Schema = Record<string, unknown>;

const TYPES = new Set(['string', 'number', 'boolean', 'integer', 'object', 'array', 'null']);
const FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
const KEYWORDS = new Set([
  'type',
  'description',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  '$ref',
  '$defs',
  'pattern',
  'format',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'minItems',
  'maxItems',
]);

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every way `parameters` breaks the strict-mode rules (an empty list when it follows them). */
export function strictModeViolations(parameters: unknown): string[] {
  const violations: string[] = [];
  const totals = { properties: 0, characters: 0, enumValues: 0 };
  if (!isSchema(parameters)) return ['(root): not a schema object'];
  if (parameters.type !== 'object') violations.push('(root): the root must be an object');
  if (parameters.anyOf !== undefined) violations.push('(root): the root must not be anyOf');
  const defs = isSchema(parameters.$defs) ? parameters.$defs : {};

  const visit = (node: unknown, path: string, depth: number): void => {
    if (!isSchema(node)) {
      violations.push(`${path}: not a schema object`);
      return;
    }
    for (const key of Object.keys(node)) {
      if (!KEYWORDS.has(key)) violations.push(`${path}: "${key}" is not supported`);
    }
    if (typeof node.$ref === 'string') {
      const name = node.$ref.startsWith('#/$defs/') ? node.$ref.slice(8) : undefined;
      if (name === undefined || !isSchema(defs[name])) {
        violations.push(`${path}: $ref ${node.$ref} points at no definition`);
      }
      return;
    }
    if (Array.isArray(node.anyOf)) {
      node.anyOf.forEach((branch, index) => {
        visit(branch, `${path}.anyOf[${index}]`, depth);
      });
      return;
    }
    const types = Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type];
    if (types.length === 0 && node.enum === undefined && node.const === undefined) {
      violations.push(`${path}: no type`);
    }
    for (const type of types) {
      if (typeof type !== 'string' || !TYPES.has(type)) {
        violations.push(`${path}: type ${JSON.stringify(type)} is not supported`);
      }
    }
    if (node.format !== undefined && !FORMATS.has(String(node.format))) {
      violations.push(`${path}: format "${String(node.format)}" is not supported`);
    }
    if (Array.isArray(node.enum)) {
      totals.enumValues += node.enum.length;
      const strings = node.enum.filter((value): value is string => typeof value === 'string');
      const length = strings.reduce((sum, value) => sum + value.length, 0);
      totals.characters += length;
      if (strings.length > 250 && length > 15_000) {
        violations.push(`${path}: a string enum of more than 250 values is over 15 000 characters`);
      }
    }
    if (typeof node.const === 'string') totals.characters += node.const.length;
    if (types.includes('object')) {
      if (depth + 1 > 10) violations.push(`${path}: objects nested more than 10 levels`);
      if (node.additionalProperties !== false) {
        violations.push(`${path}: additionalProperties must be false`);
      }
      const properties = isSchema(node.properties) ? node.properties : undefined;
      if (!properties) {
        violations.push(`${path}: an object needs properties`);
        return;
      }
      const names = Object.keys(properties);
      const required = Array.isArray(node.required) ? node.required : [];
      for (const name of names) {
        totals.properties++;
        totals.characters += name.length;
        if (!required.includes(name)) violations.push(`${path}.${name}: not listed in required`);
        visit(properties[name], `${path}.${name}`, depth + 1);
      }
      for (const name of required) {
        if (!names.includes(name as string)) {
          violations.push(`${path}: required names "${String(name)}", which is no property`);
        }
      }
    }
    if (types.includes('array')) {
      if (node.items === undefined) violations.push(`${path}: an array needs items`);
      else visit(node.items, `${path}[]`, depth);
    }
  };

  visit(parameters, '(root)', 0);
  for (const [name, definition] of Object.entries(defs)) {
    totals.characters += name.length;
    visit(definition, `$defs.${name}`, 0);
  }
  if (totals.properties > 5000) violations.push(`(root): more than 5000 properties in all`);
  if (totals.characters > 120_000) {
    violations.push('(root): more than 120 000 characters of names and values in all');
  }
  if (totals.enumValues > 1000) violations.push('(root): more than 1000 enum values in all');
  return violations;
}

/** Every way a function definition breaks the rules of strict function calling. */
export function strictFunctionViolations(definition: {
  type?: string;
  function: { name: string; parameters?: unknown; strict?: boolean | null };
}): string[] {
  const { name, parameters, strict } = definition.function;
  const violations = /^[A-Za-z0-9_-]{1,64}$/.test(name)
    ? []
    : [`the name "${name}" is not 1 to 64 letters, digits, "_" or "-"`];
  if (strict !== true) violations.push('strict is not true');
  return [...violations, ...strictModeViolations(parameters)];
}
