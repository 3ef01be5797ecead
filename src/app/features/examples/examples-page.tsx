import { useEffect, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { useToast } from '../../components/toasts';
import { getCategories, type Category } from '../../api/applications';
import { useAccountModals } from '../../session/account-modals';
import { useAuth } from '../../session/auth-context';
import { getExamples } from '../../api/get-examples';
import { getSamples, type SampleInfo } from '../../api/get-samples';
import {
  copyExampleToProfile,
  exampleClipboardText,
  startExample,
  type ExampleOutcome,
} from './example-actions';
import { ExampleCard } from './example-card';
import { gallerySections, joinSamples, type GalleryItem } from './example-gallery';
import { COPIED_TO_CLIPBOARD, EXAMPLE_MESSAGES } from './example-messages';
import './examples.css';

type Load = { state: 'loading' } | { state: 'failed' } | { state: 'ready'; items: GalleryItem[] };

/** Example Gallery (/examples, public): search, Financial and Bioinformatics sections, start and copy. */
export function ExamplesPage() {
  const { user } = useAuth();
  const modals = useAccountModals();
  const notify = useToast();
  const navigate = useNavigate();
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [categories, setCategories] = useState<Category[] | null>(null);
  const [query, setQuery] = useState('');
  const [busy, setBusy] = useState<{ id: string; action: 'start' | 'copy' } | null>(null);

  useEffect(() => {
    let cancelled = false;
    // Samples only add the dataset's size and the Synthetic badge: the gallery shows without them.
    const samples = getSamples().catch((): SampleInfo[] => []);
    getExamples()
      .then(
        async (examples) =>
          !cancelled && setLoad({ state: 'ready', items: joinSamples(examples, await samples) }),
      )
      .catch(() => !cancelled && setLoad({ state: 'failed' }));
    // Until these arrive (or when they fail) Start and Copy say the category data is not loaded.
    getCategories()
      .then((loaded) => !cancelled && setCategories(loaded))
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, []);

  const sections = useMemo(
    () => (load.state === 'ready' ? gallerySections(load.items, query) : []),
    [load, query],
  );

  const follow = (outcome: ExampleOutcome) => {
    if (outcome.kind === 'navigate') return void navigate(outcome.path);
    if (outcome.kind === 'login') {
      notify('error', outcome.message);
      return modals.open('login');
    }
    notify(outcome.kind, outcome.message);
  };

  const act = async (item: GalleryItem, action: 'start' | 'copy') => {
    const actor = { userId: user?.id ?? null, categories };
    setBusy({ id: item.example.problem_id, action });
    try {
      follow(await (action === 'start' ? startExample : copyExampleToProfile)(item.example, actor));
    } finally {
      setBusy(null);
    }
  };

  const toClipboard = async (item: GalleryItem) => {
    try {
      await navigator.clipboard.writeText(exampleClipboardText(item.example));
      notify('success', COPIED_TO_CLIPBOARD);
    } catch {
      notify('error', EXAMPLE_MESSAGES.clipboardFailed);
    }
  };

  return (
    <section className="page examples-page">
      <header className="page-header">
        <h1>Example Gallery</h1>
        <p className="muted">
          Ready-made applications on the shipped sample datasets: start one to open it in your workspace, or
          copy it to your profile.
        </p>
      </header>
      <div className="examples-search">
        <label htmlFor="examples-search" className="visually-hidden">
          Search examples
        </label>
        <input
          id="examples-search"
          type="search"
          placeholder="Search Examples..."
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
      </div>
      {load.state === 'loading' && <p className="muted">Loading...</p>}
      {load.state === 'failed' && (
        <p className="form-error" role="alert">
          The examples could not be loaded. Please try again later.
        </p>
      )}
      {load.state === 'ready' && sections.length === 0 && (
        <p className="empty-state muted">No examples match “{query}”.</p>
      )}
      {sections.map((section) => (
        <section
          key={section.categoryId}
          className="examples-section"
          aria-labelledby={`section-${section.categoryId}`}
        >
          <h2 id={`section-${section.categoryId}`}>{section.heading}</h2>
          <div className="examples-grid">
            {section.items.map((item) => (
              <ExampleCard
                key={item.example.problem_id}
                item={item}
                busy={busy?.id === item.example.problem_id ? busy.action : null}
                disabled={busy !== null}
                onStart={() => void act(item, 'start')}
                onCopy={() => void act(item, 'copy')}
                onClipboard={() => void toClipboard(item)}
              />
            ))}
          </div>
        </section>
      ))}
    </section>
  );
}
