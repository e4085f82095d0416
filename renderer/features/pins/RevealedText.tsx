/**
 * Text from a descriptor with what a person would not see made visible, as the CLI prints it and
 * shared/pins.ts names it: each hidden character (tag, zero-width, bidi) as a marked
 * `⟦U+E0073 tag⟧`, and, where `lookalikes` is set (names), each letter from another script that
 * passes for an ASCII one as `⟦U+0430 looks like a⟧`.
 */
import { confusables, hiddenCharacters, revealHidden } from '../../../shared/pins';

type Segment = { text: string; kind: 'plain' | 'hidden' | 'lookalike' };

export function revealSegments(text: string, lookalikes: boolean): Segment[] {
  const segments: Segment[] = [];
  let plain = '';
  for (const character of text) {
    const mark = hiddenCharacters(character).length > 0 ? 'hidden' : lookalikes && confusables(character).length > 0 ? 'lookalike' : null;
    if (mark === null) {
      plain += character;
      continue;
    }
    if (plain) segments.push({ text: plain, kind: 'plain' });
    plain = '';
    const [found] = confusables(character);
    segments.push({ text: mark === 'hidden' ? revealHidden(character) : `⟦${found!.codePoint} looks like ${found!.looksLike}⟧`, kind: mark });
  }
  if (plain) segments.push({ text: plain, kind: 'plain' });
  return segments;
}

export function RevealedText({ text, lookalikes = false }: { text: string; lookalikes?: boolean }) {
  return (
    <>
      {revealSegments(text, lookalikes).map((segment, index) =>
        segment.kind === 'plain' ? (
          segment.text
        ) : (
          <mark
            key={index}
            className={`revealed revealed--${segment.kind}`}
            title={segment.kind === 'hidden' ? 'A character you would not see here, but a model reads' : 'A letter from another script that looks like this ASCII one'}
          >
            {segment.text}
          </mark>
        ),
      )}
    </>
  );
}
