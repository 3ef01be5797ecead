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

type FlowNode = Node<{ node: PipelineNode }, 'pipeline'>;

/** Items listed on a node before "+ n more". */
const MAX_ITEMS = 6;

const PipelineNodeView = memo(function PipelineNodeView({ data }: NodeProps<FlowNode>) {
  const { node } = data;
  const shown = node.items.slice(0, MAX_ITEMS);
  const more = node.items.length - shown.length;
  return (
    <div
      className={`qs-flow-node qs-flow-node--${node.kind}${node.valid ? '' : ' is-invalid'}`}
      data-testid={`pipeline-node-${node.id}`}
    >
      {node.kind !== 'dataset' && <Handle type="target" position={Position.Left} isConnectable={false} />}
      <div className="qs-flow-node-head">
        <span className="qs-flow-dot" aria-hidden="true" />
        <span className="qs-flow-title">{node.label}</span>
      </div>
      {shown.length > 0 && (
        <dl className="qs-flow-items">
          {shown.map((item, i) => (
            <div key={i}>
              <dt>{item.label}</dt>
              <dd>{item.value}</dd>
            </div>
          ))}
        </dl>
      )}
      {more > 0 && <p className="qs-flow-more">+ {more} more</p>}
      {!node.valid && <p className="qs-flow-flag">Needs input</p>}
      {node.kind !== 'outputs' && <Handle type="source" position={Position.Right} isConnectable={false} />}
    </div>
  );
});

const NODE_TYPES: NodeTypes = { pipeline: PipelineNodeView };
const PRO_OPTIONS = { hideAttribution: true };
const FIT_VIEW_OPTIONS = { padding: 0.12 };

/** React Flow nodes and edges for the engine's graph: fixed, not draggable, not connectable. */
export function toFlowElements(graph: PipelineGraph): { nodes: FlowNode[]; edges: Edge[] } {
  return {
    nodes: graph.nodes.map((node) => ({
      id: node.id,
      type: 'pipeline',
      position: node.position,
      data: { node },
      draggable: false,
      connectable: false,
      selectable: false,
      deletable: false,
    })),
    edges: graph.edges.map((edge) => ({
      id: edge.id,
      source: edge.source,
      target: edge.target,
      type: 'smoothstep',
      selectable: false,
      deletable: false,
      focusable: false,
      markerEnd: { type: MarkerType.ArrowClosed },
    })),
  };
}

export interface PipelineFlowProps {
  problem: Problem;
  appData: AppData;
  context?: EngineContext;
  /** The validation of `appData` if already known (e.g. from getFormState). */
  validation?: ValidationResult;
  /** Height of the diagram in pixels. */
  height?: number;
}

/** The read-only pipeline diagram drawn from the engine's derivePipelineGraph. */
export function PipelineFlow({ problem, appData, context, validation, height = 300 }: PipelineFlowProps) {
  const { nodes, edges } = useMemo(
    () => toFlowElements(derivePipelineGraph(problem, appData, context ?? {}, validation)),
    [problem, appData, context, validation],
  );
  return (
    <div className="qs-pipeline">
      <div className="qs-pipeline-banner" role="note">
        <span aria-hidden="true" className="qs-lock">
          🔒
        </span>
        <span>{problem.platform.messages.pipelineReadOnly ?? 'Pipeline is Read Only'}</span>
      </div>
      <div className="qs-pipeline-canvas" style={{ height }}>
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
