/** `hidden`: values the user does not edit (dataset kind, sample id); nothing is drawn. */
export function HiddenWidget() {
  return null;
}
