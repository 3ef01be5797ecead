// The avatar's type and size, checked before uploading so the user hears at once; the server checks
// the file's content again (the name and the browser's type can lie).
// TODO(one home): move to schemas/ as a FileRule once the accounts schema declares the avatar.
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024;
const AVATAR_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/svg+xml']);
export const AVATAR_ACCEPT = '.png,.jpg,.jpeg,.gif,.svg,image/png,image/jpeg,image/gif,image/svg+xml';

/** The spec's message for a file that cannot be an avatar, or null when it may be uploaded. */
export function avatarProblem(file: { type: string; size: number }): string | null {
  if (!AVATAR_TYPES.has(file.type)) return 'Only PNG, JPG, GIF, or SVG files are allowed';
  if (file.size > AVATAR_MAX_BYTES) return 'File size must not exceed 2MB';
  return null;
}
