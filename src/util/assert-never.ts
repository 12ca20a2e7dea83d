export function assertNever(x: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(x)}`);
}
