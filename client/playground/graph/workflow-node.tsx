import { Handle, type NodeProps, Position } from '@xyflow/react';
import { memo } from 'react';
import type { HandleSide, WorkflowFlowNode } from './graph-flow';
import { markLabel } from './proposal-highlight';

const POSITION: Record<HandleSide, Position> = {
  top: Position.Top,
  right: Position.Right,
  bottom: Position.Bottom,
  left: Position.Left,
};

/** A node of the graph view: its key and type, its handles, and a badge saying what the pending proposal does to it. */
export const WorkflowNode = memo(function WorkflowNode({ data }: NodeProps<WorkflowFlowNode>) {
  return (
    <>
      {data.handles.map((handle) => (
        <Handle
          key={`${handle.kind}:${handle.id ?? ''}`}
          id={handle.id}
          type={handle.kind}
          position={POSITION[handle.side]}
          isConnectable={false}
          title={handle.label}
          style={
            handle.side === 'left' || handle.side === 'right'
              ? { top: `${handle.offset}%` }
              : { left: `${handle.offset}%` }
          }
        />
      ))}
      <div className="pg-node__body">
        <span className="pg-node__key">{data.nodeKey}</span>
        <span className="pg-node__type">{data.typeLabel}</span>
      </div>
      {(data.mark || data.changedSince) && (
        <span className="pg-node__badge">
          {[
            data.mark && (data.ghost === 'moved' ? 'Moves here' : markLabel(data.mark)),
            data.changedSince && 'changed since',
          ]
            .filter(Boolean)
            .join(' · ')}
        </span>
      )}
    </>
  );
});
