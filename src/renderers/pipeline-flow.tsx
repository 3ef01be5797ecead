import {
  Background,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeProps,
  type NodeTypes,
} from '@xyflow/react';
import { memo, useMemo } from 'react';

import {
  derivePipelineGraph,
  type AppData,
  type EngineContext,
  type PipelineGraph,
  type PipelineNode,
  type Problem,
  type ValidationResult,
} from '../engine';

interface FlowNodeData extends Record<string, unknown> {
  node: PipelineNode;
  /** Where the incoming and outgoing edges attach (none for the first and last node). */
  target?: Position;
  source?: Position;
}
type FlowNode = Node<FlowNodeData, 'pipeline'>;

/** Items listed on a node before "+ n more". */
const MAX_ITEMS = 6;
/** Side handles sit next to the node title, so edges between top-aligned nodes run straight. */
const SIDE_HANDLE_STYLE = { top: 20 };

function handleStyle(position: Position) {
  return position === Position.Left || position === Position.Right ? SIDE_HANDLE_STYLE : undefined;
}

const PipelineNodeView = memo(function PipelineNodeView({ data }: NodeProps<FlowNode>) {
  const { node, target, source } = data;
  const shown = node.items.slice(0, MAX_ITEMS);
  const more = node.items.length - shown.length;
  return (
    <div
      className={`qs-flow-node qs-flow-node--${node.kind}${node.valid ? '' : ' is-invalid'}`}
      data-testid={`pipeline-node-${node.id}`}
    >
      {target && <Handle type="target" position={target} isConnectable={false} style={handleStyle(target)} />}
      <div className="qs-flow-node-head">
        <span className="qs-flow-dot" aria-hidden="true" />
        <span className="qs-flow-title">{node.label}</span>
      </div>
      {shown.length > 0 && (
        <dl className="qs-flow-items">
          {shown.map((item, i) => (
            <div key={i}>
              <dt>{item.label}</dt>
              <dd title={item.value}>{item.value}</dd>
            </div>
          ))}
        </dl>
      )}
      {more > 0 && <p className="qs-flow-more">+ {more} more</p>}
      {!node.valid && <p className="qs-flow-flag">Needs input</p>}
      {source && <Handle type="source" position={source} isConnectable={false} style={handleStyle(source)} />}
    </div>
  );
});

/** Rough drawn height of a node (theme.css: item values clamp at three lines of about 30 characters). */
function estimatedHeight(node: PipelineNode): number {
  const items = node.items.slice(0, MAX_ITEMS);
  const lines = items.reduce((n, item) => n + 1 + Math.min(3, Math.ceil(item.value.length / 30)), 0);
  const titleLines = Math.ceil(node.label.length / 26);
  return (
    26 +
    titleLines * 18 +
    lines * 15 +
    items.length * 4 +
    (node.items.length > MAX_ITEMS ? 20 : 0) +
    (node.valid ? 0 : 20)
  );
}

export interface FlowLayout {
  nodes: FlowNode[];
  edges: Edge[];
  /** Width and height of the laid-out nodes, in flow units. */
  width: number;
  height: number;
}

const NODE_TYPES: NodeTypes = { pipeline: PipelineNodeView };
const PRO_OPTIONS = { hideAttribution: true };
const FIT_VIEW_OPTIONS = { padding: 0.12 };

const ROW_GAP = 56;
const NODE_WIDTH = 220;

/**
 * React Flow nodes and edges for the engine's graph: fixed, not draggable, not connectable. The
 * engine lays the steps out left to right; long pipelines are folded into rows (at most
 * `maxPerRow` steps each, every other row running right to left) so they stay readable at full
 * size. Order, spacing and edges are the engine's.
 */
export function toFlowElements(graph: PipelineGraph, maxPerRow = 4): FlowLayout {
  const count = graph.nodes.length;
  const step = count > 1 ? Math.abs(graph.nodes[1]!.position.x - graph.nodes[0]!.position.x) || 260 : 260;
  const perRow = Math.max(1, Math.ceil(count / Math.ceil(count / Math.max(1, maxPerRow))));
  const rows = Math.ceil(count / perRow);
  const rowTop: number[] = [];
  let top = 0;
  for (let row = 0; row < rows; row++) {
    rowTop.push(top);
    const inRow = graph.nodes.slice(row * perRow, (row + 1) * perRow);
    top += Math.max(...inRow.map(estimatedHeight)) + ROW_GAP;
  }
  const nodes: FlowNode[] = graph.nodes.map((node, i) => {
    const row = Math.floor(i / perRow);
    const col = i % perRow;
    const reversed = row % 2 === 1;
    const lastInRow = col === perRow - 1 || i === count - 1;
    const data: FlowNodeData = { node };
    if (i > 0) data.target = col === 0 ? Position.Top : reversed ? Position.Right : Position.Left;
    if (i < count - 1) data.source = lastInRow ? Position.Bottom : reversed ? Position.Left : Position.Right;
    return {
      id: node.id,
      type: 'pipeline',
      position: { x: (reversed ? perRow - 1 - col : col) * step, y: rowTop[row]! },
      data,
      draggable: false,
      connectable: false,
      selectable: false,
      deletable: false,
    };
  });
  return {
    nodes,
    width: (perRow - 1) * step + NODE_WIDTH,
    height: top - ROW_GAP,
    edges: graph.edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      type: 'smoothstep',
      selectable: false,
      deletable: false,
      focusable: false,
      markerEnd: { type: MarkerType.ArrowClosed, color: '#94a3b8' },
    })),
  };
}

export interface PipelineFlowProps {
  problem: Problem;
  appData: AppData;
  context?: EngineContext;
  /** The validation of `appData` if already known (e.g. from getFormState). */
  validation?: ValidationResult;
  /** Height of the diagram in pixels (default: the height of the laid-out steps). */
  height?: number;
  /** Steps per row before the diagram folds into the next row (default 4). */
  maxPerRow?: number;
}

/** The read-only pipeline diagram drawn from the engine's derivePipelineGraph. */
export function PipelineFlow({
  problem,
  appData,
  context,
  validation,
  height,
  maxPerRow,
}: PipelineFlowProps) {
  const layout = useMemo(
    () => toFlowElements(derivePipelineGraph(problem, appData, context ?? {}, validation), maxPerRow),
    [problem, appData, context, validation, maxPerRow],
  );
  const { nodes, edges } = layout;
  const canvasHeight = height ?? Math.min(720, Math.max(220, layout.height + 64));
  return (
    <div className="qs-pipeline">
      <div className="qs-pipeline-banner" role="note">
        <svg aria-hidden="true" className="qs-lock" viewBox="0 0 16 16" width="12" height="12">
          <path
            fill="currentColor"
            d="M4 7V5a4 4 0 1 1 8 0v2h.5A1.5 1.5 0 0 1 14 8.5v5a1.5 1.5 0 0 1-1.5 1.5h-9A1.5 1.5 0 0 1 2 13.5v-5A1.5 1.5 0 0 1 3.5 7H4Zm2 0h4V5a2 2 0 1 0-4 0v2Z"
          />
        </svg>
        <span>{problem.platform.messages.pipelineReadOnly}</span>
      </div>
      <div className="qs-pipeline-canvas" style={{ height: canvasHeight }}>
        <ReactFlow
          nodes={nodes}
          edges={edges}
          nodeTypes={NODE_TYPES}
          nodesDraggable={false}
          nodesConnectable={false}
          nodesFocusable={false}
          edgesFocusable={false}
          elementsSelectable={false}
          deleteKeyCode={null}
          zoomOnScroll={false}
          preventScrolling={false}
          zoomOnDoubleClick={false}
          minZoom={0.2}
          maxZoom={1}
          fitView
          fitViewOptions={FIT_VIEW_OPTIONS}
          proOptions={PRO_OPTIONS}
        >
          <Background gap={18} size={1} />
        </ReactFlow>
      </div>
    </div>
  );
}
