/** The reply envelope every successful API call uses: `{ success: true, data }`. */
export const envelope = <Data extends object>(data: Data) =>
  ({
    type: 'object',
    required: ['success', 'data'],
    properties: { success: { type: 'boolean' }, data },
  }) as const;
