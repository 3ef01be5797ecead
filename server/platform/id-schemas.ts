/**
 * Ids in paths and cursors: database ids are PostgreSQL integers (bigserial values stay far below
 * this), so a larger number names nothing and is refused as a field error before any query.
 */
export const MAX_ID = 2147483647;

/** `{id}` path parameters: a positive database id. */
export const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'integer', minimum: 1, maximum: MAX_ID } },
} as const;

/** `{<name>}` path parameters that are database ids (userId, appId, applicationId). */
export const idParam = <const Name extends string>(name: Name) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: [name],
    properties: { [name]: { type: 'integer', minimum: 1, maximum: MAX_ID } } as {
      [K in Name]: { type: 'integer'; minimum: 1; maximum: typeof MAX_ID };
    },
  }) as const;
