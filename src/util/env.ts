// Numbers from environment variables: a positive number, or undefined for anything else (unset, empty, zero,
// negative, not a number), so the caller's default applies.
export function positiveNumber(v: string | undefined): number | undefined {
  const n = v === undefined ? Number.NaN : Number(v);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
