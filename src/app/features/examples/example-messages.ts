/** The Example Gallery's messages, word for word from spec platform-shell.md section 8 (Examples). */
export const EXAMPLE_MESSAGES = {
  loginToCopy: 'Please login to copy this example to your profile',
  // {example name} is the problem's name: 'Please login to Start Fraud Detection Example'.
  loginToStart: (exampleName: string) => `Please login to Start ${exampleName} Example`,
  categoriesNotLoaded: 'Application category data not loaded yet. Please try again.',
  // The server answered and refused (an error status or success false): "Failed to ...".
  startRefused: 'Failed to start example',
  // No answer at all (network down, server unreachable, a reply that is not JSON): "An error occurred ...".
  startError: 'An error occurred while starting the application example',
  copyRefused: 'Failed to copy example to your profile',
  copyError: 'An error occurred while copying the example to your profile',
  clipboardFailed: 'Failed to copy to clipboard',
} as const;

/** Success texts (the spec names none): what was done, in the toast that closes after 5 s. */
export const copiedToProfile = (appName: string) => `"${appName}" was copied to your profile.`;
export const COPIED_TO_CLIPBOARD = 'The example’s app data was copied to the clipboard.';
