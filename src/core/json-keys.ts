// JSON.parse keeps the last of two equal keys in an object without a word. For inputs where that would
// hide a mistake (a manifest naming `replacement` twice), this finds the first key an object repeats.

/**
 * The first key that some object of `text` (already known to be valid JSON) names twice, with the
 * path of the object holding it (`operations[3]`), or null when every object's keys are distinct.
 */
export function duplicateJsonKey(text: string): { key: string; path: string } | null {
  type Frame = { keys: Set<string> | null; expectKey: boolean; path: string; index: number; lastKey: string };
  const stack: Frame[] = [];
  const childPath = (parent: Frame | undefined): string => {
    if (parent === undefined) return '';
    if (parent.keys === null) return `${parent.path}[${parent.index}]`;
    return parent.path === '' ? parent.lastKey : `${parent.path}.${parent.lastKey}`;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.keys.has(key)) return { key, path: top.path };
        top.keys.add(key);
        top.lastKey = key;
        top.expectKey = false;
      }
      i = j;
    } else if (ch === '{' || ch === '[') {
      const path = childPath(stack[stack.length - 1]);
      stack.push({ keys: ch === '{' ? new Set() : null, expectKey: ch === '{', path, index: 0, lastKey: '' });
    } else if (ch === '}' || ch === ']') {
      stack.pop();
    } else if (ch === ',') {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      else if (top) top.index++;
    }
  }
  return null;
}
