import platformJson from '../../../schemas/platform.json';

/** Spec section 8: what an action that needs the signed-in user says without one (platform.json's text). */
export const NOT_LOGGED_IN: string = platformJson.messages.notLoggedIn;
