// The six example MRI images shipped in samples/mri-examples/ (synthetic, made by
// worker/scripts/generate_brain_tumor_sample.py), two per class, read through the samples' download route.

const CLASSES = ['meningioma', 'glioma', 'pituitary'] as const;

export interface MriExample {
  /** The file under samples/, as the download route names it. */
  file: string;
  className: string;
  /** The button's accessible name: 'Example {n}: {class} (synthetic)'. */
  label: string;
}

export const MRI_EXAMPLES: MriExample[] = CLASSES.flatMap((className, c) =>
  [1, 2].map((k) => ({
    file: `mri-examples/${className}-${k}.png`,
    className,
    label: `Example ${c * 2 + k}: ${className} (synthetic)`,
  })),
);
