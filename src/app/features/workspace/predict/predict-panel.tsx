import { useEffect, useState, type ClipboardEvent, type DragEvent } from 'react';
import { Link } from 'react-router';
import { acceptAttribute, type Problem } from '../../../../engine';
import { NOT_LOGGED_IN } from '../../../session/not-logged-in';
import type { WorkspaceUser } from '../workspace-types';
import { fetchExampleImage, predictImage, type Prediction, type PredictImage } from './predict-api';
import { MRI_EXAMPLES } from './mri-examples';
import {
  IMAGE_PROCESSING_FAILED,
  validateImageFile,
  type LooksLikeMri,
  type ReadPixels,
} from './image-validation';
import { WebcamCapture } from './webcam-capture';

export const APPLICATION_MISSING = 'Application ID is missing.';
/** Spec section 5: pasted text is an image URL only when it starts with http. */
export const NOT_A_URL = 'The pasted text is not an image URL (it must start with http).';

export interface PredictPanelProps {
  problem: Problem;
  user: WorkspaceUser | null;
  applicationId: number;
  /** A prediction succeeded (it is a new output): the workspace counts it; the panel keeps showing it. */
  onPredicted(prediction: Prediction): void;
  readPixels: ReadPixels;
  looksLikeMri: LooksLikeMri;
}

type Chosen = { image: PredictImage; label: string; preview?: string };
type Verdict = { ok: boolean; message: string } | null;

/** Predict Brain Tumor: an example, an upload, a webcam frame or an image URL, a model, 'Predict Now'. */
export function PredictPanel({
  problem,
  user,
  applicationId,
  onPredicted,
  readPixels,
  looksLikeMri,
}: PredictPanelProps) {
  const rule = problem.predict?.image;
  const models = problem.predict?.models ?? [];
  const [model, setModel] = useState(models[0] ?? '');
  const [chosen, setChosen] = useState<Chosen | null>(null);
  const [verdict, setVerdict] = useState<Verdict>(null);
  const [urlText, setUrlText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<Prediction | null>(null);
  const thumbnails = useExampleThumbnails(user);
  // The chosen image's object URL is released when another is chosen and when the tab goes away.
  useEffect(() => {
    const url = chosen?.preview;
    return () => {
      if (url) URL.revokeObjectURL(url);
    };
  }, [chosen?.preview]);

  const missingMessage = rule?.messages?.missing ?? 'Please select an image before proceeding!';

  const chooseFile = async (file: File | undefined, webcam = false) => {
    setResult(null);
    setError(null);
    if (!file || !rule) {
      setChosen(null);
      setVerdict({ ok: false, message: missingMessage });
      return;
    }
    const preview = URL.createObjectURL(file);
    setChosen({ image: { file }, label: file.name, preview });
    const checked = await validateImageFile(rule, file, readPixels, looksLikeMri);
    const message =
      !checked.ok && webcam && checked.message === rule.messages?.notMri
        ? (rule.messages?.webcamNotMri ?? checked.message)
        : checked.message;
    setVerdict({ ok: checked.ok, message });
  };

  const chooseExample = async (file: string) => {
    if (!user) {
      setError(NOT_LOGGED_IN);
      return;
    }
    try {
      const blob = await fetchExampleImage(file, user);
      await chooseFile(new File([blob], file.split('/').pop() ?? file, { type: 'image/png' }));
    } catch {
      setVerdict({ ok: false, message: IMAGE_PROCESSING_FAILED });
    }
  };

  const takeUrl = (text: string) => {
    const link = text.trim();
    setResult(null);
    setError(null);
    if (!link.startsWith('http')) {
      setVerdict({ ok: false, message: NOT_A_URL });
      return;
    }
    setChosen({ image: { imageUrl: link }, label: link });
    // The server fetches and checks it (type, size, MRI look) when predicting.
    setVerdict(null);
  };

  const onPaste = (event: ClipboardEvent<HTMLInputElement>) => {
    const text = event.clipboardData.getData('text');
    event.preventDefault();
    setUrlText(text.trim());
    takeUrl(text);
  };

  const drop = (event: DragEvent) => {
    event.preventDefault();
    void chooseFile(event.dataTransfer.files[0]);
  };

  const predict = async () => {
    setError(null);
    setResult(null);
    // A link typed (not pasted) into the box counts as chosen once it starts with http.
    const typed = urlText.trim();
    const image: PredictImage | null =
      chosen?.image ?? (typed.startsWith('http') ? { imageUrl: typed } : null);
    if (!image) {
      setError(missingMessage);
      return;
    }
    if (verdict && !verdict.ok) {
      setError(verdict.message);
      return;
    }
    if (!user) {
      setError(NOT_LOGGED_IN);
      return;
    }
    if (!applicationId) {
      setError(APPLICATION_MISSING);
      return;
    }
    setBusy(true);
    try {
      const reply = await predictImage(problem, user.id, applicationId, model, image);
      setResult(reply);
      onPredicted(reply);
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="bio-predict">
      <section aria-labelledby="bio-examples-heading">
        <h3 id="bio-examples-heading">Example MRI images</h3>
        <p className="qs-hint">Synthetic slices made by the project's generator, not scans of patients.</p>
        <div className="bio-examples">
          {MRI_EXAMPLES.map((example) => (
            <button
              key={example.file}
              type="button"
              className={`bio-example${chosen?.label === example.file.split('/').pop() ? ' is-checked' : ''}`}
              aria-label={example.label}
              title={example.label}
              disabled={busy}
              onClick={() => void chooseExample(example.file)}
            >
              {thumbnails[example.file] ? (
                <img src={thumbnails[example.file]} alt="" width={96} height={96} />
              ) : (
                <span className="bio-example-placeholder" aria-hidden="true" />
              )}
              <span className="bio-example-label">{example.label}</span>
            </button>
          ))}
        </div>
      </section>

      <section aria-labelledby="bio-image-heading" className="bio-image-source">
        <h3 id="bio-image-heading">Your image</h3>
        <div className="bio-dropzone" onDragOver={(e) => e.preventDefault()} onDrop={drop}>
          {chosen?.preview ? (
            <img className="bio-chosen-image" src={chosen.preview} alt={`Chosen image ${chosen.label}`} />
          ) : (
            <p>{chosen ? chosen.label : 'Drag and drop an MRI image here...'}</p>
          )}
        </div>
        <div className="bio-row">
          {rule && (
            <label className="qs-file-button">
              <input
                type="file"
                accept={acceptAttribute(rule)}
                aria-label="Upload MRI image"
                disabled={busy}
                onChange={(e) => {
                  void chooseFile(e.target.files?.[0]);
                  e.target.value = '';
                }}
              />
              Upload {rule.extensions.map((ext) => ext.toUpperCase()).join(', ')}
            </label>
          )}
          <WebcamCapture
            disabled={busy}
            onCapture={(file) => void chooseFile(file, true)}
            onError={(message) => setVerdict({ ok: false, message })}
          />
        </div>
        <label className="bio-url">
          <span>Image URL</span>
          <input
            type="text"
            className="qs-input"
            placeholder="Paste an http(s) link to an MRI image"
            value={urlText}
            disabled={busy}
            onChange={(e) => setUrlText(e.target.value)}
            onPaste={onPaste}
            onBlur={() => {
              if (urlText.trim() && chosen?.label !== urlText.trim()) takeUrl(urlText);
            }}
          />
        </label>
        {verdict && (
          <p className={verdict.ok ? 'bio-valid' : 'form-error'} role={verdict.ok ? 'note' : 'alert'}>
            {verdict.message}
          </p>
        )}
      </section>

      <div className="bio-models" role="radiogroup" aria-labelledby="bio-model-label">
        <span id="bio-model-label" className="bio-models-label">
          Model
        </span>
        {models.map((name) => (
          <label key={name} className="bio-radio">
            <input
              type="radio"
              name="bio-predict-model"
              value={name}
              checked={model === name}
              disabled={busy}
              onChange={() => setModel(name)}
            />
            {name}
          </label>
        ))}
        {problem.predict?.modelKinds[model] && (
          <span className="bio-models-hint">
            Uses this application's latest completed {problem.predict.modelKinds[model]} training.
          </span>
        )}
      </div>

      <div className="bio-row">
        <button
          type="button"
          className="qs-button qs-button--primary"
          disabled={busy}
          onClick={() => void predict()}
        >
          {busy ? 'Predicting…' : 'Predict Now'}
        </button>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {result && <PredictionResult result={result} applicationId={applicationId} />}
    </div>
  );
}

/**
 * The answer at once, where the image was chosen: the predicted class, every class's probability and
 * the link to the output that records it (the spec's client moved to the outputs list instead).
 */
function PredictionResult({ result, applicationId }: { result: Prediction; applicationId: number }) {
  const entries = Object.entries(result.probabilities ?? {});
  return (
    <div className="bio-result" role="status">
      <p className="bio-result-class">Prediction: {result.prediction}</p>
      <ul className="bio-bars" aria-label="Probabilities">
        {entries.map(([name, p]) => (
          <li key={name}>
            <span className="bio-bar-name">{name}</span>
            <span className="bio-bar" aria-hidden="true">
              <span style={{ width: `${Math.round(p * 100)}%` }} />
            </span>
            <span className="bio-bar-value">{(p * 100).toFixed(1)} %</span>
          </li>
        ))}
      </ul>
      {result.message && <p>{result.message}</p>}
      {result.output_id !== undefined && (
        <p>
          <Link to={`/applications/${applicationId}/outputs/${result.output_id}`}>
            Open this prediction's output (#{result.output_id})
          </Link>
        </p>
      )}
    </div>
  );
}

/** Object URLs of the example images, read once through the download route (they need the bearer token). */
function useExampleThumbnails(user: WorkspaceUser | null): Record<string, string> {
  const [urls, setUrls] = useState<Record<string, string>>({});
  useEffect(() => {
    if (!user) return;
    let cancelled = false;
    const made: string[] = [];
    for (const example of MRI_EXAMPLES) {
      fetchExampleImage(example.file, user).then(
        (blob) => {
          if (cancelled) return;
          const url = URL.createObjectURL(blob);
          made.push(url);
          setUrls((prev) => ({ ...prev, [example.file]: url }));
        },
        () => undefined, // the button keeps its label; choosing it reports the failure
      );
    }
    return () => {
      cancelled = true;
      made.forEach((url) => URL.revokeObjectURL(url));
    };
  }, [user]);
  return urls;
}
