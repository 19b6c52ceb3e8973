import { GraphEdge, GraphNode } from '../graph.types';

/** A node's stored vector, as the embedded store keeps it beside the node's document. */
export interface StoredVector {
  blob: Buffer;
  model: string;
  hash: string | null;
}

const EMBEDDING_FIELDS = ['embedding', 'embeddingModel', 'embeddingHash'] as const;

/** The node's JSON document as stored: every field (unknown ones too) except the embedding fields, kept in their own columns. */
export function encodeNodeDocument(node: GraphNode): string {
  const document: Record<string, unknown> = { ...node };
  for (const field of EMBEDDING_FIELDS) delete document[field];
  return JSON.stringify(document);
}

export function encodeEdgeDocument(edge: GraphEdge): string {
  return JSON.stringify(edge);
}

export function decodeDocument<T>(document: string): T {
  return JSON.parse(document) as T;
}

/** The vector a node document carries itself (an export from Nodius), when it names its model. */
export function vectorCarriedBy(node: GraphNode): StoredVector | null {
  const { embedding, embeddingModel, embeddingHash } = node;
  if (
    !Array.isArray(embedding) ||
    embedding.length === 0 ||
    typeof embeddingModel !== 'string' ||
    embeddingModel.length === 0
  )
    return null;
  return {
    blob: encodeVector(Float32Array.from(embedding)),
    model: embeddingModel,
    hash: typeof embeddingHash === 'string' ? embeddingHash : null,
  };
}

/** Float32 little-endian bytes (the platform order: every supported platform is little-endian). */
export function encodeVector(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Copies the blob into a fresh, aligned Float32Array (a Buffer's offset is not always a multiple of 4). */
export function decodeVector(blob: Buffer): Float32Array {
  const vector = new Float32Array(Math.floor(blob.byteLength / 4));
  new Uint8Array(vector.buffer).set(blob.subarray(0, vector.byteLength));
  return vector;
}
