// The lines the crash writer writes; each contains 〔index〕, unique as a substring. They are
// already in normalised form (the store would otherwise normalise them).
export type CrashVersion = 'base' | 'long' | 'short';

export function crashLine(index: number, version: CrashVersion): string {
  const base = `第${index}行 line ${index} 混合 mixed〔${index}〕`;
  if (version === 'base') return base;
  if (version === 'long') return `${base}，这一句后来被识别得更长了 and the recogniser extended it`;
  return `〔${index}〕短`;
}
