import { AVATAR_RULE } from '../../../engine';

export { avatarProblem } from '../../../engine';

/** The file picker's accept list: the avatar rule's extensions and declared types. */
export const AVATAR_ACCEPT = [
  ...AVATAR_RULE.extensions.map((ext) => `.${ext}`),
  ...AVATAR_RULE.mediaTypes,
].join(',');
