// A small XML reader, enough for JUnit reports: elements, attributes, text, CDATA, comments, the XML
// declaration and a DOCTYPE without an internal subset; the five predefined entities and numeric character
// references. No namespaces, no DTD entities. It walks the text once with an index (no regular
// expressions) and throws on malformed input with the offset, so a truncated report is an error, not
// a silently shorter list.

export type XmlElement = {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  readonly children: readonly XmlElement[];
  /** The element's own character data (text and CDATA), entities decoded; child elements' text excluded. */
  readonly text: string;
};

type MutableElement = { name: string; attrs: Record<string, string>; children: MutableElement[]; text: string };

export class XmlError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'XmlError';
  }
}

const PREDEFINED: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

export function decodeEntities(s: string, offsetOfS = 0): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const amp = s.indexOf('&', i);
    if (amp < 0) {
      out += s.slice(i);
      break;
    }
    out += s.slice(i, amp);
    const semi = s.indexOf(';', amp);
    if (semi < 0) throw new XmlError('unterminated entity reference', offsetOfS + amp);
    const ref = s.slice(amp + 1, semi);
    if (ref.startsWith('#')) {
      const hex = ref[1] === 'x' || ref[1] === 'X';
      const code = Number.parseInt(ref.slice(hex ? 2 : 1), hex ? 16 : 10);
      if (!Number.isInteger(code) || code < 0 || code > 0x10ffff)
        throw new XmlError(`bad character reference &${ref};`, offsetOfS + amp);
      out += String.fromCodePoint(code);
    } else {
      const v = PREDEFINED[ref];
      if (v === undefined) throw new XmlError(`unknown entity &${ref};`, offsetOfS + amp);
      out += v;
    }
    i = semi + 1;
  }
  return out;
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\n' || c === '\t' || c === '\r';
}

function isNameChar(c: string | undefined): boolean {
  return c !== undefined && !isSpace(c) && c !== '>' && c !== '/' && c !== '=' && c !== '<' && c !== '"' && c !== "'";
}

/** Parses a document; returns its root element. */
export function parseXml(doc: string): XmlElement {
  let i = 0;
  const stack: MutableElement[] = [];
  let root: MutableElement | undefined;

  const expectEnd = (marker: string, what: string): number => {
    const end = doc.indexOf(marker, i);
    if (end < 0) throw new XmlError(`unterminated ${what}`, i);
    return end;
  };
  const readName = (): string => {
    const start = i;
    while (isNameChar(doc[i])) i++;
    if (i === start) throw new XmlError('expected a name', i);
    return doc.slice(start, i);
  };
  const skipSpace = (): void => {
    while (isSpace(doc[i])) i++;
  };

  while (i < doc.length) {
    if (doc[i] !== '<') {
      const next = doc.indexOf('<', i);
      const end = next < 0 ? doc.length : next;
      const raw = doc.slice(i, end);
      const top = stack[stack.length - 1];
      if (top) top.text += decodeEntities(raw, i);
      else if (raw.trim() !== '') throw new XmlError('text outside the root element', i);
      i = end;
      continue;
    }
    if (doc.startsWith('<?', i)) {
      i = expectEnd('?>', 'processing instruction') + 2;
    } else if (doc.startsWith('<!--', i)) {
      i = expectEnd('-->', 'comment') + 3;
    } else if (doc.startsWith('<![CDATA[', i)) {
      const end = expectEnd(']]>', 'CDATA section');
      const top = stack[stack.length - 1];
      if (!top) throw new XmlError('CDATA outside the root element', i);
      top.text += doc.slice(i + 9, end);
      i = end + 3;
    } else if (doc.startsWith('<!', i)) {
      i = expectEnd('>', 'declaration') + 1;
    } else if (doc[i + 1] === '/') {
      i += 2;
      const name = readName();
      skipSpace();
      if (doc[i] !== '>') throw new XmlError(`expected > after </${name}`, i);
      i++;
      const top = stack.pop();
      if (!top || top.name !== name)
        throw new XmlError(`closing </${name}> does not match <${top?.name ?? '(none)'}>`, i);
    } else {
      i++;
      const el: MutableElement = { name: readName(), attrs: {}, children: [], text: '' };
      for (;;) {
        skipSpace();
        if (doc[i] === '>' || doc.startsWith('/>', i)) break;
        if (i >= doc.length) throw new XmlError(`unterminated <${el.name}>`, i);
        const attr = readName();
        skipSpace();
        if (doc[i] !== '=') throw new XmlError(`expected = after attribute ${attr}`, i);
        i++;
        skipSpace();
        const quote = doc[i];
        if (quote !== '"' && quote !== "'") throw new XmlError(`expected a quoted value for ${attr}`, i);
        const end = doc.indexOf(quote, i + 1);
        if (end < 0) throw new XmlError(`unterminated value of ${attr}`, i);
        el.attrs[attr] = decodeEntities(doc.slice(i + 1, end), i + 1);
        i = end + 1;
      }
      const selfClosing = doc[i] === '/';
      i += selfClosing ? 2 : 1;
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      else if (root) throw new XmlError('a second root element', i);
      else root = el;
      if (!selfClosing) stack.push(el);
    }
  }
  if (stack.length > 0) throw new XmlError(`<${stack[stack.length - 1]?.name}> is not closed`, doc.length);
  if (!root) throw new XmlError('no root element', 0);
  return root;
}

/** Child elements named `name`. */
export function childrenNamed(el: XmlElement, name: string): XmlElement[] {
  return el.children.filter((c) => c.name === name);
}
