import { defaultWordVectorsFile } from './local-words-embedding.provider';
import { SifSentenceEncoder } from './sif-sentence.encoder';
import { WordVectors } from './word-vectors';

describe(SifSentenceEncoder.name, () => {
  // The table shipped in config/word-vectors (GloVe, 25,000 words): meaning is what it is for.
  const encoder = new SifSentenceEncoder(WordVectors.load(defaultWordVectorsFile()));
  const similarity = (left: string, right: string) => {
    const a = encoder.encode(left);
    const b = encoder.encode(right);
    return a.reduce((sum, value, index) => sum + value * b[index], 0);
  };

  it('gives unit vectors of the table dimension, and the zero vector without a known word', () => {
    const vector = encoder.encode('push the generated picture to the media hosting service');
    expect(vector).toHaveLength(100);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    expect(Math.hypot(...encoder.encode('the of and const return'))).toBe(0);
    expect(Math.hypot(...encoder.encode('zzqx wvbrt'))).toBe(0);
  });

  it('puts texts of the same meaning closer than texts that share no meaning, without shared words', () => {
    expect(similarity('upload the picture', 'image hosting')).toBeGreaterThan(
      similarity('upload the picture', 'invoice total') + 0.2,
    );
    expect(similarity('staff sick leave and vacation', 'employees illness holidays')).toBeGreaterThan(
      similarity('staff sick leave and vacation', 'convert html to pdf') + 0.2,
    );
  });

  it('reads identifiers, plurals and verb forms the table lacks, and glued compounds', () => {
    expect(similarity('sendEmailNotification', 'send email notification')).toBeGreaterThan(0.99);
    expect(similarity('webhook', 'web hook')).toBeGreaterThan(0.99);
  });

  it('reads a French text through the domain lexicon’s English words', () => {
    expect(similarity('Où envoie-t-on le courriel ?', 'send email')).toBeGreaterThan(
      similarity('Où envoie-t-on le courriel ?', 'resize image') + 0.2,
    );
  });
});
