// onJobFailureMessagePatterns are Go regular expressions (RE2 syntax), matched unanchored as regexp.MatchString
// does. This turns one into a JavaScript RegExp where the two mean the same, and refuses what RE2 refuses (upstream
// logs such a pattern as invalid and skips it):
//   - leading flags (?i) (?m) (?s) (any mix) become RegExp flags; flags anywhere else, (?i:...) groups and (?U)
//     are refused (RE2 takes them; a refused pattern matches nothing, so a rule using one is never applicable)
//   - (?P<name>...) becomes (?<name>...); \A becomes ^ and \z becomes $ (neither side has the m flag then)
//   - [[:alpha:]] and the other ASCII classes inside brackets become their ranges
//   - \s and \S (RE2: [\t\n\f\r ] only; JavaScript adds \v and Unicode spaces) become that set, outside brackets
//   - `.` (RE2: anything but \n; JavaScript also stops at \r, U+2028 and U+2029) becomes [^\n], without (?s)
//   - lookarounds and backreferences (not RE2) are refused
// Left different, and documented: \pN-style Unicode classes, \C, and `.` on characters outside the BMP (matched
// as two UTF-16 units without the u flag, which cannot be used: it refuses escapes such as \- that RE2 allows).
const POSIX: Readonly<Record<string, string>> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** The RegExp that matches as the RE2 pattern does, or undefined when RE2 (or this translation) refuses it. */
export function re2ToRegExp(pattern: string): RegExp | undefined {
  let flags = '';
  let rest = pattern;
  const lead = /^\(\?([ims]+)\)/.exec(rest);
  if (lead) {
    flags = [...new Set(lead[1])].join('');
    rest = rest.slice(lead[0].length);
  }
  if (/\(\?[=!]|\(\?<[=!]|\\[1-9]|\\k<|\(\?[a-zA-Z-]+[):]/.test(rest.replace(/\(\?P?<[A-Za-z_]\w*>/g, '('))) {
    return undefined;
  }
  let out = '';
  let inClass = false;
  for (let i = 0; i < rest.length; i++) {
    const c = rest[i]!;
    if (c === '\\') {
      const n = rest[i + 1] ?? '';
      i++;
      if (!inClass && n === 'A') out += '^';
      else if (!inClass && n === 'z') out += '$';
      else if (!inClass && n === 's') out += '[\\t\\n\\f\\r ]';
      else if (!inClass && n === 'S') out += '[^\\t\\n\\f\\r ]';
      else out += `\\${n}`;
      continue;
    }
    if (inClass && c === '[' && rest[i + 1] === ':') {
      const m = /^\[:(\^?)([a-z]+):\]/.exec(rest.slice(i));
      const range = m ? POSIX[m[2]!] : undefined;
      if (m && range !== undefined && m[1] === '') {
        out += range;
        i += m[0].length - 1;
        continue;
      }
      if (m) return undefined; // negated or unknown POSIX class: not translated
    }
    if (!inClass && c === '.' && !flags.includes('s')) {
      out += '[^\\n]';
      continue;
    }
    if (!inClass && c === '(' && rest.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    }
    if (c === '[' && !inClass) inClass = true;
    else if (c === ']' && inClass && !out.endsWith('[') && !out.endsWith('[^')) inClass = false;
    out += c;
  }
  try {
    return new RegExp(out, flags);
  } catch {
    return undefined;
  }
}

/** regexp.MatchString: whether the pattern matches anywhere in the text; undefined for an invalid pattern. */
export function re2Matches(pattern: string, text: string): boolean | undefined {
  return re2ToRegExp(pattern)?.test(text);
}
