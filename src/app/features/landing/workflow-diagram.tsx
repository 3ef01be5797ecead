/** Spec section 1: the seven steps of the landing page's workflow diagram, in order. */
export const WORKFLOW_STEPS = [
  { title: 'Input dataset', text: 'Upload a CSV file or start from a shipped sample dataset.' },
  { title: 'Application options', text: 'Pick the problem, the target columns and the preprocessing.' },
  {
    title: 'Choose existing classical or quantum models',
    text: 'Classical networks, quantum circuits or a hybrid of both.',
  },
  { title: 'Training customizations', text: 'Epochs, learning rate, qubits, layers and the backend.' },
  { title: 'Output results', text: 'Predictions, selections and the trained model of every run.' },
  { title: 'Training and metric results', text: 'Loss curves, accuracy and confusion matrices.' },
  { title: 'Output interpretations', text: 'What the results mean, technically and in plain words.' },
] as const;

/**
 * The workflow diagram: horizontal at 1024 px or wider, vertical below (spec sections 1 and 9; the
 * switch is a CSS media query in landing.css, so it follows the window without script).
 */
export function WorkflowDiagram() {
  return (
    <ol className="workflow-diagram" aria-label="How an application is built, in seven steps">
      {WORKFLOW_STEPS.map((step, index) => (
        <li key={step.title} className="workflow-step">
          <span className="workflow-number" aria-hidden="true">
            {index + 1}
          </span>
          <span className="workflow-text">
            <strong>{step.title}</strong>
            <span className="muted">{step.text}</span>
          </span>
        </li>
      ))}
    </ol>
  );
}
