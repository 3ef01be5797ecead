// The avatar image rule (spec section 5), one home for the browser and the server: the profile form
// checks the file's declared type and size before uploading, to answer at once; the upload route
// (server/media) applies the same limit and messages but judges the type by the file's bytes.

export const AVATAR_RULE = {
  maxBytes: 2 * 1024 * 1024,
  /** The declared types the browser offers and pre-checks. */
  mediaTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml'],
  extensions: ['png', 'jpg', 'jpeg', 'gif', 'svg'],
  messages: {
    type: 'Only PNG, JPG, GIF, or SVG files are allowed',
    size: 'File size must not exceed 2MB',
  },
} as const;

/** The rule's message for a file that cannot be an avatar by its declared type or size, else null. */
export function avatarProblem(file: { type: string; size: number }): string | null {
  if (!(AVATAR_RULE.mediaTypes as readonly string[]).includes(file.type)) return AVATAR_RULE.messages.type;
  if (file.size > AVATAR_RULE.maxBytes) return AVATAR_RULE.messages.size;
  return null;
}
