import type { CurrentUser } from '../../session/api/current-user';
import type { ProfileUpdate } from './api/update-profile';

/** What the profile edit form holds (strings, as the inputs give them). */
export interface ProfileFormValues {
  name: string;
  dob: string;
  provided_timezone: string;
  custom_ibmq_token: string;
  old_password: string;
  new_password: string;
  confirm_new_password: string;
}

export function formValuesOf(user: CurrentUser, token: string, fallbackZone: string): ProfileFormValues {
  return {
    name: user.name,
    dob: user.dob ? user.dob.slice(0, 10) : '',
    provided_timezone: user.provided_timezone || fallbackZone,
    custom_ibmq_token: token,
    old_password: '',
    new_password: '',
    confirm_new_password: '',
  };
}

/**
 * The PUT body for these values: the password fields only when any is filled (the rules then ask for
 * all three), the token only when its editor was opened (empty clears it).
 */
export function profileUpdateOf(
  values: ProfileFormValues,
  options: { tokenEdited: boolean; imageUrl: string | null | undefined },
): ProfileUpdate {
  const update: ProfileUpdate = {
    name: values.name.trim(),
    dob: values.dob,
    provided_timezone: values.provided_timezone,
  };
  if (options.imageUrl !== undefined) update.image_url = options.imageUrl;
  if (options.tokenEdited) update.custom_ibmq_token = values.custom_ibmq_token.trim();
  for (const key of ['old_password', 'new_password', 'confirm_new_password'] as const) {
    if (values[key]) update[key] = values[key];
  }
  return update;
}
