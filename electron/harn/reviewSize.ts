/**
 * How much of a Harn request may be put before the operator. A permission request's tool input
 * and a human-in-the-loop request's schema, default, args or detail become an approval's
 * arguments, which every console reads with `GET /approvals` and the event stream; a line may
 * be 8 MiB, so a few pending requests could make the queue too large to send at all.
 *
 * A field over the limit is refused (the request denied, the script told why), never cut: the
 * operator would approve what they were not shown. An HTTP agent's whole call is bounded by the
 * 1 MiB body limit; a review field is bounded well below that, as no one reviews more.
 */

/** The most JSON, in bytes, one reviewed field may hold. */
export const MAX_REVIEWED_FIELD_BYTES = 64 * 1024;

/** The first field whose JSON is over MAX_REVIEWED_FIELD_BYTES, with its size; undefined when all fit. */
export function oversizedField(fields: Record<string, unknown>): { name: string; bytes: number } | undefined {
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    const bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
    if (bytes > MAX_REVIEWED_FIELD_BYTES) return { name, bytes };
  }
  return undefined;
}

/** Why a request with that field is refused, as the run's log and the script read it. */
export function oversizedReason({ name, bytes }: { name: string; bytes: number }): string {
  return `its ${name} is ${Math.ceil(bytes / 1024)} KiB of JSON, over the ${MAX_REVIEWED_FIELD_BYTES / 1024} KiB an operator is shown; not put before the operator`;
}
