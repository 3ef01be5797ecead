import type { Example } from '../../api/get-examples';
import type { SampleInfo } from '../../api/get-samples';

/** An example with the shipped sample its dataset names (none for a dataset that is not shipped). */
export interface GalleryItem {
  example: Example;
  sample: SampleInfo | undefined;
}

export interface GallerySection {
  categoryId: string;
  /** 'Financial Applications', 'Bioinformatics Applications' (spec section 2). */
  heading: string;
  items: GalleryItem[];
}

const basename = (file: string) => file.split('/').pop() ?? file;

/** Joins each example with its sample dataset by file name (the example may name samples/<file>). */
export function joinSamples(examples: Example[], samples: SampleInfo[]): GalleryItem[] {
  const byFile = new Map(samples.map((sample) => [basename(sample.file), sample]));
  return examples.map((example) => ({ example, sample: byFile.get(basename(example.dataset.file)) }));
}

/**
 * 'Search Examples...': case-insensitive, every word must appear in the example's name, problem,
 * category, description or dataset label.
 */
export function matchesSearch({ example, sample }: GalleryItem, query: string): boolean {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = [
    example.app_name,
    example.problem_name,
    example.category.name,
    example.description,
    example.dataset.label,
    sample?.label ?? '',
  ]
    .join(' ')
    .toLowerCase();
  return words.every((word) => haystack.includes(word));
}

/** The sections in the order the server lists the examples (category order), empty ones left out. */
export function gallerySections(items: GalleryItem[], query: string): GallerySection[] {
  const sections = new Map<string, GallerySection>();
  for (const item of items) {
    const { id, label } = item.example.category;
    const section = sections.get(id) ?? { categoryId: id, heading: label, items: [] };
    sections.set(id, section);
    if (matchesSearch(item, query)) section.items.push(item);
  }
  return [...sections.values()].filter((section) => section.items.length > 0);
}
