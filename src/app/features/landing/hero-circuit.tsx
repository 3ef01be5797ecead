/** The hero's picture: a small quantum circuit (three qubits, gates, an entangling CNOT, measurement). */
export function HeroCircuit() {
  const wires = [40, 90, 140];
  return (
    <svg className="hero-circuit" viewBox="0 0 360 180" aria-hidden="true" focusable="false">
      {wires.map((y, index) => (
        <g key={y}>
          <text x="8" y={y + 5} className="circuit-label">
            q{index}
          </text>
          <line x1="36" x2="340" y1={y} y2={y} className="circuit-wire" />
        </g>
      ))}
      <rect x="60" y="24" width="32" height="32" rx="6" className="circuit-gate" />
      <text x="76" y="45" className="circuit-gate-text">
        H
      </text>
      <rect x="60" y="124" width="32" height="32" rx="6" className="circuit-gate alt" />
      <text x="76" y="145" className="circuit-gate-text">
        Ry
      </text>
      <line x1="134" x2="134" y1="40" y2="90" className="circuit-link" />
      <circle cx="134" cy="40" r="6" className="circuit-dot" />
      <circle cx="134" cy="90" r="11" className="circuit-target" />
      <line x1="134" x2="134" y1="79" y2="101" className="circuit-link" />
      <line x1="123" x2="145" y1="90" y2="90" className="circuit-link" />
      <line x1="196" x2="196" y1="90" y2="140" className="circuit-link" />
      <circle cx="196" cy="90" r="6" className="circuit-dot" />
      <circle cx="196" cy="140" r="11" className="circuit-target" />
      <line x1="185" x2="207" y1="140" y2="140" className="circuit-link" />
      <line x1="196" x2="196" y1="129" y2="151" className="circuit-link" />
      <rect x="228" y="74" width="36" height="32" rx="6" className="circuit-gate alt" />
      <text x="246" y="95" className="circuit-gate-text">
        Rz
      </text>
      {wires.map((y) => (
        <g key={`m${y}`}>
          <rect x="290" y={y - 16} width="32" height="32" rx="6" className="circuit-measure" />
          <path d={`M296 ${y + 7} A 10 10 0 0 1 316 ${y + 7}`} className="circuit-meter" />
          <line x1="306" x2="314" y1={y + 7} y2={y - 8} className="circuit-meter" />
        </g>
      ))}
    </svg>
  );
}
