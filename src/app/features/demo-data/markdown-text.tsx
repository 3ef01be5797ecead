import type { ReactNode } from 'react';

/** `**bold**` inside a line of the analysis engine's Markdown. */
function inline(text: string): ReactNode[] {
  return text
    .split(/(\*\*[^*]+\*\*)/)
    .map((part, index) =>
      part.startsWith('**') && part.endsWith('**') ? <strong key={index}>{part.slice(2, -2)}</strong> : part,
    );
}

/**
 * The analysis engine's report as the page shows it: headings, bullet lists and paragraphs (the
 * only Markdown the engine writes). The report's own title is left out: the card names the run.
 */
export function MarkdownText({ markdown }: { markdown: string }) {
  const blocks: ReactNode[] = [];
  let items: string[] = [];
  const flush = () => {
    if (items.length === 0) return;
    blocks.push(
      <ul key={`list-${blocks.length}`}>
        {items.map((item, index) => (
          <li key={index}>{inline(item)}</li>
        ))}
      </ul>,
    );
    items = [];
  };
  for (const line of markdown.split('\n')) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*]\s+(.*)$/.exec(line);
    if (bullet) {
      items.push(bullet[1]!);
      continue;
    }
    flush();
    if (heading) {
      if (heading[1]!.length === 1) continue;
      blocks.push(<h4 key={`h-${blocks.length}`}>{inline(heading[2]!)}</h4>);
    } else if (line.trim()) {
      blocks.push(<p key={`p-${blocks.length}`}>{inline(line)}</p>);
    }
  }
  flush();
  return <div className="demo-report">{blocks}</div>;
}
