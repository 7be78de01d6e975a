// The part of a workspace the lab runs: servers, groups, services, target sets and the timers.
// Appliances, the site's name and every description change nothing the lab does, so editing
// them does not make the running lab out of date.
type Raw = Record<string, unknown>;

const NOT_RUN = new Set(['appliances', 'name', 'description']);

function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (v && typeof v === 'object') {
    const out: Raw = {};
    for (const [k, x] of Object.entries(v)) if (k !== 'description') out[k] = strip(x);
    return out;
  }
  return v;
}

export function labPart(raw: Raw | undefined): Raw {
  const out: Raw = {};
  for (const [k, v] of Object.entries(raw ?? {})) if (!NOT_RUN.has(k)) out[k] = strip(v);
  return out;
}
