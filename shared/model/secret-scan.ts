// Before a save: a value typed into a field that takes a secret's name (`secret`, `bindSecret`)
// that is not a name, found anywhere in the text. Independent of the schema on purpose: a file
// the validator stops early on (an unknown version, a broken section) must not carry a
// password to disk either.
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { SECRET_NAME } from './schema';

import { SECRET_FIELDS } from './checks/tables';

/** The checks' secret fields, and dsconfig's bind secret (`appliances[].dsconfig.bindSecret`). */
const SECRET_KEYS = new Set([...SECRET_FIELDS.map((f) => f.key), 'bindSecret']);

/** The path of the first secret-name field holding something else (`groups[0].healthCheck.radius.secret`), if any. */
export function plainSecretField(text: string): string | undefined {
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false });
  return walk(doc, doc.contents as Node | null, '');
}

/** A key's text: a scalar's value, or the scalar an alias key stands for. */
function keyOf(doc: Document, key: unknown): string | undefined {
  const k = isAlias(key) ? key.resolve(doc) : key;
  return isScalar(k) ? String(k.value) : undefined;
}

function walk(doc: Document, node: Node | null | undefined, path: string): string | undefined {
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = keyOf(doc, pair.key);
      const here = key === undefined ? path : path ? `${path}.${key}` : key;
      const value = pair.value as Node | null;
      if (key !== undefined && SECRET_KEYS.has(key)) {
        // Anything but a scalar secret name (a number, a list, a map, a name with spaces…) is refused.
        if (!(isScalar(value) && typeof value.value === 'string' && SECRET_NAME.test(value.value)) && !(isScalar(value) && value.value === null)) return here;
        continue;
      }
      const found = walk(doc, value, here);
      if (found) return found;
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      const found = walk(doc, node.items[i] as Node | null, `${path}[${i}]`);
      if (found) return found;
    }
  }
  return undefined;
}
