const LINK = /(https?:\/\/[^\s<>"]+)/;

/** A kept mail's text with its web addresses as links (text only: nothing in a mail becomes markup). */
export function MailBody({ text }: { text: string }) {
  // split with a capturing group keeps the addresses at the odd positions.
  const parts = text.split(LINK);
  return (
    <pre className="admin-mail-body">
      {parts.map((part, index) =>
        index % 2 === 1 ? (
          <a key={index} href={part} target="_blank" rel="noreferrer noopener">
            {part}
          </a>
        ) : (
          part
        ),
      )}
    </pre>
  );
}
