import type { Example } from '../../api/get-examples';

interface Props {
  id: string;
  problems: Pick<Example, 'problem_id' | 'problem_name'>[] | null;
  value: string | null;
  onChange: (problemId: string) => void;
}

/** Which example application a demo section shows. */
export function ProblemPicker({ id, problems, value, onChange }: Props) {
  if (!problems || problems.length === 0) return null;
  return (
    <div className="demo-picker">
      <label htmlFor={id}>Example application</label>
      <select id={id} value={value ?? ''} onChange={(event) => onChange(event.target.value)}>
        {problems.map((problem) => (
          <option key={problem.problem_id} value={problem.problem_id}>
            {problem.problem_name}
          </option>
        ))}
      </select>
    </div>
  );
}
