// intstr.GetScaledValueFromIntOrPercent: an int as it is, "N%" as N percent of total rounded up or down (as Go
// computes it: float64(N) * float64(total) / 100, then Ceil or Floor). Anything else is an error upstream: null.
export type IntOrString = number | string;

export function scaledValue(v: IntOrString, total: number, roundUp: boolean): number | null {
  if (typeof v === 'number') return v;
  if (!v.endsWith('%')) return null;
  const digits = v.slice(0, -1);
  if (!/^[-+]?[0-9]+$/.test(digits)) return null; // strconv.Atoi
  const scaled = (Number(digits) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}
