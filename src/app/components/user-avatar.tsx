/** The two initials of a name ('ada_lovelace' -> 'AL') for the generated avatar. */
export const initialsOf = (name: string): string =>
  name
    .split(/[\s_.-]+/)
    .map((part) => part[0]?.toUpperCase() ?? '')
    .join('')
    .slice(0, 2) || '?';

/** The user's image, or a generated initials avatar when there is none. */
export function UserAvatar({
  name,
  imageUrl,
  size,
}: {
  name: string;
  imageUrl?: string | null;
  size: number;
}) {
  const style = { width: size, height: size, fontSize: Math.round(size * 0.4) };
  return imageUrl ? (
    <img className="avatar" src={imageUrl} alt="" style={style} />
  ) : (
    <span className="avatar initials" aria-hidden="true" style={style}>
      {initialsOf(name)}
    </span>
  );
}
