// GPT-2 style byte-to-unicode table used by byte-level BPE tokenizers (Qwen2's included):
// printable Latin-1 bytes map to themselves, the rest to code points from U+0100 upward.
export function bytesToUnicode(): string[] {
  const table: string[] = new Array<string>(256);
  const direct: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) direct.push(b);
  for (let b = 0xa1; b <= 0xac; b++) direct.push(b);
  for (let b = 0xae; b <= 0xff; b++) direct.push(b);
  const isDirect = new Set(direct);
  let next = 0;
  for (let b = 0; b < 256; b++) {
    if (isDirect.has(b)) {
      table[b] = String.fromCodePoint(b);
    } else {
      table[b] = String.fromCodePoint(256 + next);
      next++;
    }
  }
  return table;
}
