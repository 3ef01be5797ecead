/** One of the two report buttons: enabled by the pins or selection it needs, and what it opens. */
export interface ReportButton {
  disabled: boolean;
  onClick(): void;
  title?: string;
}

export interface ReportKindChoiceProps {
  /** The radio group's name (unique on the page). */
  name: string;
  technical: boolean;
  onTechnicalChange(technical: boolean): void;
  analyze: ReportButton;
  compare: ReportButton;
  /** The buttons' style: 'primary' or 'secondary'. */
  tone: 'primary' | 'secondary';
}

/**
 * The written reports' controls both outputs lists show (spec section 2): the Technical or
 * Non-Technical choice, then Analyze Output (one output) and Compare Outputs (two).
 */
export function ReportKindChoice({
  name,
  technical,
  onTechnicalChange,
  analyze,
  compare,
  tone,
}: ReportKindChoiceProps) {
  const button = (label: string, action: ReportButton) => (
    <button
      type="button"
      className={`button ${tone}`}
      disabled={action.disabled}
      onClick={action.onClick}
      title={action.title}
    >
      {label}
    </button>
  );
  return (
    <>
      <fieldset className="bio-analysis-kind">
        <legend>Analysis type</legend>
        <label>
          <input type="radio" name={name} checked={technical} onChange={() => onTechnicalChange(true)} />
          Technical
        </label>
        <label>
          <input type="radio" name={name} checked={!technical} onChange={() => onTechnicalChange(false)} />
          Non-Technical
        </label>
      </fieldset>
      {button('Analyze Output', analyze)}
      {button('Compare Outputs', compare)}
    </>
  );
}
