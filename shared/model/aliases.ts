// Aliases are measured by what they expand to, not by how often they are used: a site may share
// one healthCheck across hundreds of groups, while "billion laughs" grows tenfold per level.
import { isAlias, isCollection, isDocument, isPair, isScalar, type Alias, type Document, type Node } from 'yaml';
import { MAX_ALIAS_EXPANSION } from './limits';

export interface AliasBomb {
  alias: Alias;
  /** Nodes this one alias stands for. */
  size: number;
}

/**
 * The first alias at which the nodes added by alias expansion pass MAX_ALIAS_EXPANSION, walking
 * the document in order (an alias names the last anchor set before it). Call it on a document
 * already checked for depth: the walk recurses.
 */
export function aliasBomb(doc: Document): AliasBomb | undefined {
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  let added = 0;
  let bomb: AliasBomb | undefined;
  const size = (node: unknown): number => {
    if (bomb) return 0;
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      // A missing anchor is reported elsewhere; one inside its own anchor is a cycle, not growth.
      const n = target && !open.has(target) ? (sizes.get(target) ?? 1) : 1;
      added += n;
      if (added > MAX_ALIAS_EXPANSION) bomb = { alias: node, size: n };
      return n;
    }
    const anchored = (isScalar(node) || isCollection(node)) && node.anchor ? (node as Node) : undefined;
    if (anchored) {
      anchors.set(anchored.anchor!, anchored);
      open.add(anchored);
    }
    let n = 1;
    if (isCollection(node)) for (const item of node.items) n += isPair(item) ? size(item.key) + size(item.value) : size(item);
    if (anchored) {
      open.delete(anchored);
      sizes.set(anchored, n);
    }
    return n;
  };
  size(isDocument(doc) ? doc.contents : undefined);
  return bomb;
}

/** The document's data, its aliases expanded; throws on an alias bomb (validation names it first). */
export function documentData(doc: Document): unknown {
  if (aliasBomb(doc)) throw new Error(`aliases expand to more than ${MAX_ALIAS_EXPANSION} nodes: refused as an alias bomb`);
  return doc.toJS({ maxAliasCount: -1 });
}
